// Shadow memory: for every byte range that operations touched, who last wrote
// it and who read it since (one read per lane, FastTrack style). Ranges are
// exact: adjacent disjoint slices of one buffer never conflict, partial
// overlaps split intervals at the overlap's bounds. Adjacent intervals with
// equal state are merged again, so memory follows live buffers, not trace length.
#pragma once

#include <cstdint>
#include <array>
#include <map>
#include <memory>
#include <vector>

#include "runtime/address_index.h"
#include "runtime/ids.h"
#include "runtime/vector_clock.h"

namespace streamcheck {

// What an access did to the bytes. kAllocate/kFree mark lifetime boundaries.
enum class ShadowKind : uint8_t { kRead, kWrite, kReadWrite, kUnknown, kAllocate, kFree };

inline bool ShadowKindWrites(ShadowKind k) { return k != ShadowKind::kRead; }

// Who did an access: the operation (lane, clock) and the code (site). Where
// the operation sits in the trace is kept by the engine's OpLog, not here.
struct ShadowAccess {
  Lane lane = kNoLane;
  Clock clock = 0;
  uint32_t site = 0;  // SiteTable id: the code that did it
  ShadowKind kind = ShadowKind::kRead;

  bool valid() const { return lane != kNoLane; }
  Epoch epoch() const { return {lane, clock}; }
  bool SameAs(const ShadowAccess& o) const {
    return lane == o.lane && clock == o.clock && site == o.site && kind == o.kind;
  }
};
static_assert(sizeof(ShadowAccess) == 16, "ShadowAccess is the hot-path record; keep it packed");

// Reads since the last write, at most one per lane. Two fit inline (most
// buffers are read by one or two streams between writes); more spill to the heap.
class ReadSet {
 public:
  ReadSet() = default;
  ReadSet(const ReadSet& o) { *this = o; }
  ReadSet& operator=(const ReadSet& o) {
    inline_ = o.inline_;
    count_ = o.count_;
    overflow_ = o.overflow_ ? std::make_unique<std::vector<ShadowAccess>>(*o.overflow_) : nullptr;
    return *this;
  }
  ReadSet(ReadSet&&) = default;
  ReadSet& operator=(ReadSet&&) = default;

  size_t size() const { return count_; }
  const ShadowAccess& operator[](size_t i) const { return i < kInline ? inline_[i] : (*overflow_)[i - kInline]; }
  ShadowAccess& operator[](size_t i) { return i < kInline ? inline_[i] : (*overflow_)[i - kInline]; }
  void push_back(const ShadowAccess& a) {
    if (count_ < kInline) {
      inline_[count_++] = a;
      return;
    }
    if (!overflow_) overflow_ = std::make_unique<std::vector<ShadowAccess>>();
    overflow_->push_back(a);
    ++count_;
  }
  void clear() {
    count_ = 0;
    if (overflow_) overflow_->clear();
  }
  // The read of `lane`, or nullptr. Two tight loops: inline part, then spill.
  ShadowAccess* FindLane(Lane lane) {
    const size_t in_line = count_ < kInline ? count_ : kInline;
    for (size_t i = 0; i < in_line; ++i)
      if (inline_[i].lane == lane) return &inline_[i];
    if (count_ > kInline)
      for (ShadowAccess& a : *overflow_)
        if (a.lane == lane) return &a;
    return nullptr;
  }

 private:
  static constexpr size_t kInline = 2;
  std::array<ShadowAccess, kInline> inline_{};
  uint32_t count_ = 0;
  std::unique_ptr<std::vector<ShadowAccess>> overflow_;
};

struct ShadowInterval {
  Address end = 0;
  ShadowAccess write;  // the last write, allocation or free
  ReadSet reads;       // reads since that write
};

// A pair of accesses with no happens-before edge, over [begin, end).
struct ShadowConflict {
  ShadowAccess earlier;
  Address begin = 0;
  Address end = 0;
};

class ShadowMemory {
 public:
  // Checks an access against the history of [addr, addr+size), appends
  // conflicts to `conflicts`, and records the access. `is_host(lane)` tells
  // whether a lane is a host thread (host/host pairs are never reported).
  template <typename IsHost>
  void Access(Address addr, uint64_t size, const ShadowAccess& now, const VectorClock& clock,
              IsHost is_host, std::vector<ShadowConflict>* conflicts);

  // Memory-level parallelism for one operation's several accesses: callers
  // prefetch every access's index slot before the first Access().
  void PrefetchIndex(Address addr) const { by_begin_.PrefetchSlot(addr); }

  // Like Access for a free: every earlier access must be ordered before it
  // (violations are returned); then the range holds a single free marker.
  template <typename IsHost>
  void Free(Address addr, uint64_t size, const ShadowAccess& free, const VectorClock& clock,
            IsHost is_host, std::vector<ShadowConflict>* conflicts);

  // Forgets [addr, addr+size) (fresh allocation); if `marker` is valid the
  // range starts with it as its last write (stream-ordered allocation).
  void Reset(Address addr, uint64_t size, const ShadowAccess& marker);

  size_t interval_count() const { return intervals_.size(); }

 private:
  using Map = std::map<Address, ShadowInterval>;  // key: interval begin
  // Makes [addr, end) covered by intervals whose bounds include addr and end.
  Map::iterator Carve(Address addr, Address end);
  Map::iterator SplitAt(Map::iterator it, Address at);
  void MergeAround(Address addr, Address end);
  // Every change to the map goes through these two, which keep `by_begin_` in step.
  Map::iterator Insert(Map::iterator hint, Address begin, ShadowInterval interval);
  Map::iterator Erase(Map::iterator it);

  Map intervals_;
  // Interval begin -> interval (map nodes never move), for the exact-match fast path.
  AddressIndex<ShadowInterval> by_begin_;
};

}  // namespace streamcheck

#include "runtime/shadow_memory_inl.h"
