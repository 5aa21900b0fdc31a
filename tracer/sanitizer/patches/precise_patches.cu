// The device side of `streamcheck run --precise`: patches the Compute
// Sanitizer API inserts before every global memory access and at every
// thread's exit of an instrumented kernel (device_summary_layout.h says what
// they log and why). Compiled at build time with
// `nvcc --fatbin --compile-as-tools-patch` and embedded in the tracer.
//
// Patch signatures are the Sanitizer API's (sanitizer_patching.h); userdata
// is the launch's DeviceSummary, or null for a launch left to fast mode.
// Each patch tests for null and returns before anything else, the work in
// functions of their own: a kernel left to fast mode pays the call alone,
// not the registers the logging needs.
#include <sanitizer_patching.h>

#include "tracer/sanitizer/device_summary_layout.h"

namespace {

using streamcheck::tracer::precise::AccessRange;
using streamcheck::tracer::precise::DeviceSummary;
using streamcheck::tracer::precise::kRangePrefetch;
using streamcheck::tracer::precise::kRangeRead;
using streamcheck::tracer::precise::kRangeWrite;

__device__ __forceinline__ unsigned SmId() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ unsigned LaneId() {
  unsigned id;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ unsigned SegmentOf() {
  return SmId() & (streamcheck::tracer::precise::kSegments - 1);
}

__device__ __forceinline__ unsigned WarpSlot() {
  unsigned id;
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(id));
  return id;
}

// A plain (weak) load of the global space: the summary's address is
// generic, and the cache-operator intrinsics compile to strong loads.
__device__ __forceinline__ ulonglong2 LoadGlobal(const void* p) {
  ulonglong2 value;
  asm("ld.global.v2.u64 {%0, %1}, [%2];" : "=l"(value.x), "=l"(value.y) : "l"(p));
  return value;
}

// The second word of a range the segment table remembers: its size, mode
// and the launch's generation (so no launch of the slot sees another's).
__device__ __forceinline__ unsigned long long SegmentTag(const DeviceSummary* s, uint32_t size, uint32_t flags) {
  return static_cast<unsigned long long>(size) | (static_cast<unsigned long long>(flags & 0xff) << 32) |
         static_cast<unsigned long long>(s->generation & streamcheck::tracer::precise::kGenerationMask) << 40;
}

// Whether `segment` logged `range` lately in this launch; if not, it
// remembers it now. Two warps racing on one entry at worst both log; the
// warps of a segment's SMs share its table, so an entry may be read while
// another warp writes it, and PTX does not make a 16-byte access single-copy
// atomic: the range's address and mode, mixed (a bijection, so no two ranges
// share it), pick the entry by their high bits and are folded into its
// second word, and an entry read torn (its address from one write, its
// second word from another) matches no range but by a 64-bit coincidence.
__device__ __forceinline__ bool SeenLately(DeviceSummary* s, unsigned segment, const AccessRange& range) {
  using streamcheck::tracer::precise::kRecentPerSegment;
  const unsigned long long mixed =
      (range.address ^ static_cast<unsigned long long>(range.flags & 0xff) << 56) * 0x9E3779B97F4A7C15ull;
  const unsigned long long tag = SegmentTag(s, range.size, range.flags) ^ mixed;
  const unsigned hash = static_cast<unsigned>(mixed >> 40) & (kRecentPerSegment - 1);
  ulonglong2* entry = reinterpret_cast<ulonglong2*>(s->recent + segment * kRecentPerSegment + hash);
  const ulonglong2 seen = __ldcg(entry);
  if (seen.x == range.address && seen.y == tag) return true;
  __stcg(entry, make_ulonglong2(range.address, tag));
  return false;
}

// The second word of an entry of this launch in mode `flags`, size bits
// clear (device_summary_layout.h: kWarpEntry*), from its WarpTableRef's tag.
__device__ __forceinline__ unsigned long long WarpTag(unsigned long long launch_tag, uint32_t flags) {
  using namespace streamcheck::tracer::precise;
  return launch_tag | static_cast<unsigned long long>(flags & ((1u << kWarpEntryModeBits) - 1)) << kWarpEntrySizeBits;
}

// The entry of the last range this warp logged in the page of `address` in
// mode `flags` (device_summary_layout.h: kWarpRecentEntries). Every lane
// finds its own from its own bytes, without a word from the others. (The
// page's low bits make the key: consecutive pages take consecutive entries,
// and a hash's 64-bit multiply cost the fast path a tenth of its time.)
__device__ __forceinline__ ulonglong2* WarpRecent(unsigned long long table, uint64_t address, uint32_t flags) {
  using namespace streamcheck::tracer::precise;
  const unsigned warp = (SmId() % kWarpRecentSms) * kWarpRecentWarps + WarpSlot() % kWarpRecentWarps;
  const unsigned key = (static_cast<unsigned>(address >> 12) ^ (flags << 4)) & (kWarpRecentPerWarp - 1);
  return reinterpret_cast<ulonglong2*>(table) + warp * kWarpRecentPerWarp + key;
}

// The warp logged `range`: the entries of its first and last pages hold it.
__device__ __forceinline__ void RememberInWarp(DeviceSummary* s, const AccessRange& range) {
  using namespace streamcheck::tracer::precise;
  if (range.size >> kWarpEntrySizeBits != 0) return;
  const auto table = reinterpret_cast<unsigned long long>(s->warps.table);
  const ulonglong2 entry = make_ulonglong2(range.address, WarpTag(s->warps.tag, range.flags) | range.size);
  *WarpRecent(table, range.address, range.flags) = entry;
  const uint64_t last = range.address + range.size - 1;
  if ((last >> 12) != (range.address >> 12)) *WarpRecent(table, last, range.flags) = entry;
}

// Whether every active lane's bytes lie in what its warp last logged in
// their page and mode (a loop touching them again, unrolled or not): then
// there is nothing to log. Inlined into the patches, so a hit makes no call.
__device__ __forceinline__ bool WarpLoggedLately(DeviceSummary* s, unsigned active, uint64_t address, uint32_t size,
                                                 uint32_t flags) {
  using namespace streamcheck::tracer::precise;
  const ulonglong2 ref = LoadGlobal(&s->warps);  // {table, tag}
  const ulonglong2 entry = LoadGlobal(WarpRecent(ref.x, address, flags));
  constexpr unsigned long long kSizeBits = (1u << kWarpEntrySizeBits) - 1;
  // Without short circuits: no branch, so no convergence barrier to set up.
  const bool covered = ((entry.y & ~kSizeBits) == WarpTag(ref.y, flags)) & (address >= entry.x) &
                       (address + size <= entry.x + (entry.y & kSizeBits));
  return __all_sync(active, covered);
}

// A range the segment had no room for widens its hull of lost ranges.
__device__ __noinline__ void Lose(DeviceSummary* s, unsigned segment, const AccessRange& range) {
  using namespace streamcheck::tracer::precise;
  const unsigned long long low = range.address, high = range.address + range.size;
  if ((range.flags & kRangeRead) != 0) {
    atomicMin(&s->lost[segment][kHullRead].low, low);
    atomicMax(&s->lost[segment][kHullRead].high, high);
  }
  if ((range.flags & kRangeWrite) != 0) {
    atomicMin(&s->lost[segment][kHullWrite].low, low);
    atomicMax(&s->lost[segment][kHullWrite].high, high);
  }
}

// The lanes of `fresh` (a subset of `group`, which all call this) log their
// `range`: one atomic by the group's first lane. Past the segment's
// capacity nothing is written, but the count still grows, so the host sees
// by how much the launch overflowed, and the range widens the segment's hull.
__device__ __forceinline__ void Append(DeviceSummary* s, unsigned segment, unsigned group, unsigned fresh,
                                       const AccessRange& range) {
  if (fresh == 0) return;  // uniform across the group
  const unsigned lane = LaneId();
  const unsigned leader = __ffs(group) - 1;
  unsigned first = 0;
  if (lane == leader) first = atomicAdd(&s->counts[segment].value, __popc(fresh));
  first = __shfl_sync(group, first, leader);
  if ((fresh >> lane & 1u) == 0) return;
  const unsigned index = first + __popc(fresh & ((1u << lane) - 1));
  if (index >= s->segment_capacity) return Lose(s, segment, range);
  // One 16-byte store to pinned host memory.
  const unsigned long long size_and_flags =
      static_cast<unsigned long long>(range.size) | (static_cast<unsigned long long>(range.flags) << 32);
  *reinterpret_cast<ulonglong2*>(s->log + static_cast<size_t>(segment) * s->segment_capacity + index) =
      make_ulonglong2(range.address, size_and_flags);
}

// The lanes of `group` execute access instructions of one size and kind.
// Where their bytes form one gap-free range (each lane starts within the
// previous lane's bytes or right after them, in ascending or descending lane
// order: coalesced loads, broadcasts, overlapping windows) the group logs
// that one range, which the first and last lanes bound; else every lane logs
// its own. (Tools patches may not use the warp reductions, redux.)
__device__ __noinline__ void Log(DeviceSummary* s, unsigned group, uint64_t address, uint32_t size, uint32_t flags) {
  const unsigned lane = LaneId();
  const unsigned leader = __ffs(group) - 1;
  const unsigned last = 31 - __clz(group);
  const unsigned below = group & ((1u << lane) - 1);
  const unsigned segment = SegmentOf();
  const uint64_t previous = __shfl_sync(group, address, below != 0 ? 31 - __clz(below) : lane);
  const uint64_t first_address = __shfl_sync(group, address, leader);
  const uint64_t last_address = __shfl_sync(group, address, last);
  uint64_t low = 0, high = 0;
  if (__all_sync(group, previous <= address && address <= previous + size)) {
    low = first_address, high = last_address + size;
  } else if (__all_sync(group, address <= previous && previous <= address + size)) {
    low = last_address, high = first_address + size;
  }
  if (high - low > 0 && high - low <= 0xffffffffull) {
    const AccessRange range{low, static_cast<uint32_t>(high - low), flags};
    if (lane == leader) RememberInWarp(s, range);
    const bool fresh = lane == leader && !SeenLately(s, segment, range);
    Append(s, segment, group, __ballot_sync(group, fresh), range);
    return;
  }
  const AccessRange own{address, size, flags};
  Append(s, segment, group, __ballot_sync(group, !SeenLately(s, segment, own)), own);
}

// Lanes that reach the patch together may come from different access
// instructions; those of one size and kind log together.
__device__ __noinline__ void LogAccess(DeviceSummary* s, unsigned active, uint64_t address, uint32_t size,
                                       uint32_t flags) {
  const unsigned group = __match_any_sync(active, flags << 8 | size);
  Log(s, group, address, size, flags);
}

// The patches of single accesses: a warp whose bytes its warp logged lately
// returns at once; the others log.
__device__ __forceinline__ void Access(DeviceSummary* s, uint64_t address, uint32_t size, uint32_t flags) {
  const unsigned active = __activemask();
  if (!WarpLoggedLately(s, active, address, size, flags)) LogAccess(s, active, address, size, flags);
}

// Bulk copies: every active lane of the warp has the same operands; its
// first lane logs the global bytes (16-byte blocks).
__device__ __noinline__ void LogWarpUniform(DeviceSummary* s, uint64_t address, uint64_t bytes, uint32_t flags) {
  const unsigned group = __activemask();
  const AccessRange range{address, static_cast<uint32_t>(bytes), flags};
  const unsigned segment = SegmentOf();
  const bool fresh = LaneId() == __ffs(group) - 1 && !SeenLately(s, segment, range);
  Append(s, segment, group, __ballot_sync(group, fresh), range);
}

// The thread's exit. Each warp makes its log stores visible to the host
// before it counts its exited threads; the warp that completes the count
// publishes the segments' counts and hulls, resets the device side for the
// slot's next launch, and sets `done`.
__device__ __noinline__ void Exit(DeviceSummary* s) {
  using namespace streamcheck::tracer::precise;
  const unsigned active = __activemask();
  __threadfence_system();
  if (LaneId() != __ffs(active) - 1) return;
  const unsigned long long threads = static_cast<unsigned long long>(gridDim.x) * gridDim.y * gridDim.z *
                                     blockDim.x * blockDim.y * blockDim.z;
  const unsigned long long exiting = __popc(active);
  if (atomicAdd(&s->exited, exiting) + exiting != threads) return;
  __threadfence_system();
  for (unsigned i = 0; i < kSegments; ++i) {
    s->host->counts[i] = atomicExch(&s->counts[i].value, 0u);
    for (unsigned mode = 0; mode < 2; ++mode) {
      s->host->lost[i][mode].low = atomicExch(&s->lost[i][mode].low, ~0ull);
      s->host->lost[i][mode].high = atomicExch(&s->lost[i][mode].high, 0ull);
    }
  }
  s->exited = 0;
  s->warps.tag = WarpEntryTag(s->slot, ++s->generation);
  __threadfence_system();
  s->host->done = 1;
}

}  // namespace

extern "C" __device__ __noinline__ SanitizerPatchResult StreamcheckGlobalAccess(void* userdata, uint64_t, void* ptr,
                                                                               uint32_t accessSize, uint32_t flags,
                                                                               const void*) {
  if (userdata != nullptr && (flags & kRangePrefetch) == 0)
    Access(static_cast<DeviceSummary*>(userdata), reinterpret_cast<uint64_t>(ptr), accessSize, flags);
  return SANITIZER_PATCH_SUCCESS;
}

// For measuring what the merging saves (STREAMCHECK_DEBUG=precise-per-access):
// every lane logs its own range with an atomic of its own, on one counter.
extern "C" __device__ __noinline__ SanitizerPatchResult StreamcheckGlobalAccessPerLane(void* userdata, uint64_t,
                                                                                      void* ptr,
                                                                                      uint32_t accessSize,
                                                                                      uint32_t flags, const void*) {
  auto* s = static_cast<DeviceSummary*>(userdata);
  if (s == nullptr || (flags & kRangePrefetch) != 0) return SANITIZER_PATCH_SUCCESS;
  const unsigned index = atomicAdd(&s->counts[0].value, 1u);
  if (index < s->segment_capacity) {
    const unsigned long long size_and_flags =
        static_cast<unsigned long long>(accessSize) | (static_cast<unsigned long long>(flags) << 32);
    *reinterpret_cast<ulonglong2*>(s->log + index) = make_ulonglong2(reinterpret_cast<uint64_t>(ptr), size_and_flags);
  }
  return SANITIZER_PATCH_SUCCESS;
}

// cp.async (global to shared): the global source is read.
extern "C" __device__ __noinline__ SanitizerPatchResult StreamcheckMemcpyAsync(void* userdata, uint64_t, void* src,
                                                                              uint32_t, uint32_t accessSize) {
  if (userdata != nullptr && src != nullptr)
    Access(static_cast<DeviceSummary*>(userdata), reinterpret_cast<uint64_t>(src), accessSize, kRangeRead);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult StreamcheckBulkGlobalToShared(void* userdata, uint64_t,
                                                                                     uint64_t src, uint32_t,
                                                                                     uint32_t, uint32_t data,
                                                                                     uint32_t) {
  if (userdata != nullptr)
    LogWarpUniform(static_cast<DeviceSummary*>(userdata), src, uint64_t{data & 0xffffu} * 16, kRangeRead);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult StreamcheckBulkSharedToGlobal(void* userdata, uint64_t,
                                                                                     uint64_t dst, uint32_t,
                                                                                     uint32_t numBlocks) {
  if (userdata != nullptr)
    LogWarpUniform(static_cast<DeviceSummary*>(userdata), dst, uint64_t{numBlocks} * 16, kRangeWrite);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult StreamcheckBulkReductionToGlobal(void* userdata, uint64_t,
                                                                                        uint64_t dst, uint32_t,
                                                                                        uint32_t numBlocks) {
  if (userdata != nullptr)
    LogWarpUniform(static_cast<DeviceSummary*>(userdata), dst, uint64_t{numBlocks} * 16, kRangeRead | kRangeWrite);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult StreamcheckBlockExit(void* userdata, uint64_t) {
  if (userdata != nullptr) Exit(static_cast<DeviceSummary*>(userdata));
  return SANITIZER_PATCH_SUCCESS;
}
