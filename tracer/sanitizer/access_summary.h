// A kernel launch's logged device ranges (device_summary_layout.h) as the
// exact accesses the engine checks: the bytes read, written, or both, as
// disjoint ranges. No CUDA here: unit-tested without a GPU.
//
// A memory-bound launch logs a range per warp and access instruction: a
// million of them for 128 MiB touched. Sorting them took the analysis
// worker some 100 ms a launch; instead each range sets its bytes in a bitmap
// per 4 KiB page touched (one page's bitmaps are 1 KiB, found by a hash and
// mostly the page of the range before), and the runs of set bits, page by
// page in address order, are the accesses.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "runtime/trace_record.h"
#include "tracer/sanitizer/device_summary_layout.h"

namespace streamcheck::tracer::precise {

// Whether a logged range touches any byte: an atomic reads and writes (its
// flags say both); a prefetch, or an empty range, touches none.
inline bool TouchesBytes(const AccessRange& r) { return r.size != 0 && (r.flags & (kRangeRead | kRangeWrite)) != 0; }

class RangeMerger {
 public:
  // The bitmaps' page (parallel_merge.h deals ranges to threads by it).
  static constexpr uint64_t kPageBytes = 4096;

  // One launch: Add its ranges (the log's segments, where they lie), then
  // Take the union by mode: bytes only read become kRead, only written
  // kWrite, both (or touched by an atomic) kReadWrite. At most `max_accesses`
  // come out: past that the closest neighbours of each mode are joined (the
  // gap between them then counts as touched: a few bytes too many rather
  // than a record of a million accesses), and *joined tells whether that
  // happened. Take readies the merger for the next launch; it keeps its
  // pages' memory.
  // (Several mergers share a large launch, each given the ranges on the
  // pages it owns: parallel_merge.h.)
  void Add(std::span<const AccessRange> ranges);
  void Take(size_t max_accesses, std::vector<MemoryAccess>* out, bool* joined);

 private:
  static constexpr size_t kWords = kPageBytes / 64;
  struct Page {
    std::array<uint64_t, kWords> read, write;
  };
  Page& PageAt(Address page_base);
  void Mark(Address begin, Address end, bool read, bool write);

  std::unordered_map<Address, uint32_t> page_of_;  // page base -> index into pages_
  std::vector<Page> pages_;
  std::vector<Address> bases_;  // pages_[i]'s base
  // In front of page_of_: a launch's ranges alternate between a few buffers'
  // pages (a warp reads one, writes another), each found again here.
  struct Recent {
    Address base = ~Address{0};
    uint32_t index = 0;
  };
  static constexpr int kRecentBits = 6;
  std::array<Recent, size_t{1} << kRecentBits> recent_{};
};

// The accesses of several mergers of one launch (each Taken without a
// limit) as one list: pieces of one mode that meet (a run across two
// mergers' pages) are joined.
void JoinParts(std::vector<MemoryAccess>* accesses);

// At most `max_accesses` accesses: past that the closest neighbours of each
// mode are joined (*joined then holds), as Take does.
void LimitAccesses(std::vector<MemoryAccess>* accesses, size_t max_accesses, bool* joined);

}  // namespace streamcheck::tracer::precise
