// The memory the precise front-end's device patches (patches/precise_patches.cu)
// and its host side (device_summaries.h) share for one kernel launch. Plain
// C layout, compiled by nvcc and by the host compiler alike.
//
// Per launch the patches log the global memory the kernel touches as
// ranges: the lanes of a warp that execute one access instruction together
// are merged into one range where their bytes are contiguous (the common,
// coalesced case), else each lane logs its own. A range the same segment
// logged a moment ago (a loop reading the same element again, every warp
// reading one scalar) is dropped: each segment remembers its recent ranges
// in a small table, tagged with the launch's generation. Every warp takes one
// atomic per access instruction at most, on the counter of its SM's own
// segment of the log, so a memory-bound kernel is not serialized on one
// address. The log lives in pinned host memory, written with plain stores the
// device posts and forgets. The last thread to exit publishes each segment's
// count and sets `done`; the analysis worker then merges the ranges into the
// launch's exact read and write sets (access_summary.h). A range that finds
// its segment full widens the segment's hull of lost reads or writes
// instead: the host takes the hull as a guess (its first byte certain), so an
// overflowing launch loses no access, only certainty, and its kernel gets a
// log as large as it needed at its next launch.
#pragma once

#include <stdint.h>

namespace streamcheck::tracer::precise {

// Bits of AccessRange::flags: the Sanitizer API's Sanitizer_DeviceMemoryFlags.
enum : uint32_t {
  kRangeRead = 0x1,
  kRangeWrite = 0x2,
  kRangeAtomicSystem = 0x4,
  kRangePrefetch = 0x8,  // touches no byte: never logged
};

struct AccessRange {
  uint64_t address;
  uint32_t size;
  uint32_t flags;
};
static_assert(sizeof(AccessRange) == 16, "one 16-byte store per logged range");

// Segment of an SM: %smid & (kSegments - 1); a counter shared by two or
// three SMs of today's GPUs (the H100 has 132) is no contention to speak of.
inline constexpr uint32_t kSegments = 64;
// Recently logged ranges remembered per segment (a power of two).
// (The two or three SMs of a segment run up to 64 warps each, a few ranges
// apiece in a loop: a smaller table lost them to collisions.)
inline constexpr uint32_t kRecentPerSegment = 4096;

// The last ranges each resident warp logged, by (SM, warp slot) and the low
// bits of page and mode: a loop touching the same bytes again (a read-
// modify-write, a scalar every iteration reads) finds each lane's bytes in
// the entry of its page and returns at the cost of two loads and one vote,
// before the call, grouping, shuffles and votes of a logged access. A warp
// slot runs one warp at a time, whichever launch it belongs to, so a
// context's slots share one table; its entries are tagged with their
// launch's slot and generation (WarpEntryTag), so a launch takes only its own and
// a collision costs a miss, never a lost access. (With 16 entries a warp,
// init_array's pattern lost 3% of its time where its scalar's page and its
// array's shared an entry, and missed every iteration.)
inline constexpr uint32_t kWarpRecentSms = 256;        // %smid below this (the H100 has 132)
inline constexpr uint32_t kWarpRecentWarps = 64;       // %warpid: resident warp slots of an SM
inline constexpr uint32_t kWarpRecentPerWarp = 64;     // (page, mode) entries of a warp (a power of two)
inline constexpr uint32_t kWarpRecentEntries = kWarpRecentSms * kWarpRecentWarps * kWarpRecentPerWarp;

// The bits of a slot's launch count (`generation`) that the tables' entries
// keep as their tag. The host clears a slot's segment table and its
// context's warps' table every half period of its launches, so no entry is
// still there when its tag comes round again and would pass for one of the
// launch then running (device_summaries.cpp).
inline constexpr uint32_t kGenerationMask = 0xffffff;
inline constexpr uint64_t kTablesClearedEvery = (uint64_t{kGenerationMask} + 1) / 2;

// An entry of the warps' table: its range's address, then its size (ranges
// a warp logs in one access are at most 32 lanes of 16 bytes; larger ones
// are not remembered), mode and launch (WarpEntryTag): kWarpEntry* bits.
inline constexpr uint32_t kWarpEntrySizeBits = 12;
inline constexpr uint32_t kWarpEntryModeBits = 4;     // read, write, system-scope atomic, prefetch
inline constexpr uint32_t kWarpEntryTagShift = kWarpEntrySizeBits + kWarpEntryModeBits;
// The slots a process may make: their index and 24 bits of their generation
// make the tag. Past it, launches keep fast mode's extents.
inline constexpr uint32_t kWarpTagSlots = 1u << 24;
static_assert(kWarpEntryTagShift + 24 + 24 == 64, "an entry's second word: size, mode, slot, generation");

// The bytes of the ranges a segment could not log, by mode: [low, high).
struct Hull {
  unsigned long long low;            // ~0 while empty
  unsigned long long high;
};
enum : uint32_t { kHullRead = 0, kHullWrite = 1 };

// Pinned host memory, written by the device once, when the launch is over.
struct SummaryHostSide {
  volatile uint32_t done;            // 1 once every thread of the launch has exited
  uint32_t padding;
  uint32_t counts[kSegments];        // ranges each segment took, even past its capacity
  Hull lost[kSegments][2];           // by kHullRead / kHullWrite
};

// A segment's range counter, on a cache line of its own: every warp of a
// memory-bound launch takes an atomic on its segment's counter per access
// instruction, and counters that share a line queue at one L2 slice.
struct alignas(128) SegmentCount {
  uint32_t value;
};

#ifdef __CUDACC__
#define STREAMCHECK_HOST_DEVICE __host__ __device__
#else
#define STREAMCHECK_HOST_DEVICE
#endif

// The second word of a launch's entries in the warps' table, its size and
// mode bits clear: the launch's slot and generation.
STREAMCHECK_HOST_DEVICE constexpr unsigned long long WarpEntryTag(uint32_t slot, uint32_t generation) {
  return (static_cast<unsigned long long>(slot) << 24 | (generation & kGenerationMask)) << kWarpEntryTagShift;
}

// What the warps' fast path reads of a summary, in one 16-byte load.
struct alignas(16) WarpTableRef {
  AccessRange* table;                // device memory: the context's kWarpRecentEntries
  unsigned long long tag;            // WarpEntryTag(slot, generation) of the launch running
};

// Device memory, one per slot (a launch at a time); userdata of the patches.
struct DeviceSummary {
  WarpTableRef warps;
  AccessRange* log;                  // pinned host memory: kSegments * segment_capacity ranges
  SummaryHostSide* host;             // pinned host memory
  AccessRange* recent;               // device memory: kSegments * kRecentPerSegment (packed, see the patches)
  uint32_t segment_capacity;
  uint32_t generation;               // the slot's launch count: tags the tables' entries
  uint32_t slot;                     // the slot's index (< kWarpTagSlots): tags the warps' table's entries
  uint32_t padding;
  unsigned long long exited;         // threads past their exit; back to 0 when published
  SegmentCount counts[kSegments];    // back to 0 when published: the slot is ready for its next launch
  Hull lost[kSegments][2];           // back to empty when published
};

}  // namespace streamcheck::tracer::precise
