// How much room a launch's log (device_summary_layout.h) gets per segment.
// Pinned memory is slow to get (pinning 16 MiB takes milliseconds) and a
// launch in flight holds its own: the cuda-samples' simpleHyperQ queues 64
// single-thread kernels on 32 streams at once, and giving each 16 MiB of
// pinned log cost it more than memcheck's whole run (tests/gpu/bench/results/README.md). So a
// first launch gets room in proportion to its warps, a later one what its
// kernel needed before. A first launch that overflows takes guesses, so the
// room per warp is generous: a warp looping 128 times over a read and a
// write fits. No CUDA here: unit-tested without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>

namespace streamcheck::tracer::precise {

// Room per segment, in ranges: never less than this, never more than that.
inline constexpr uint32_t kMinSegmentCapacity = 1u << 10;
inline constexpr uint32_t kMaxSegmentCapacity = 1u << 18;
// A first launch's room: kRangesPerWarp per warp (a warp logs a range per
// access instruction it runs, less the repeats the device drops), spread
// over the segments its blocks can reach, twice over for the uneven share
// of SMs per segment; at most kFirstLaunchCapacity per segment (a million
// ranges in all, some 64 MiB of coalesced 4-byte accesses read and
// written), past which a launch that overflows takes guesses once and its
// kernel gets what it needed at the next launch.
inline constexpr uint32_t kRangesPerWarp = 256;
inline constexpr uint32_t kFirstLaunchCapacity = 1u << 14;

// The smallest power of two >= n, within [kMinSegmentCapacity, kMaxSegmentCapacity].
uint32_t ClampedCapacity(double n);
// A kernel's first launch of `threads` threads in `blocks` blocks of `block_threads`.
uint32_t FirstLaunchCapacity(uint64_t blocks, uint64_t block_threads);
// A later launch of `threads` threads, of a kernel that once needed
// `ranges_per_thread` ranges in a segment per thread of its launch: that,
// twice over (one kernel launched over a whole buffer and then over each
// quarter).
uint32_t RegrownCapacity(double ranges_per_thread, uint64_t threads);

// Pinned memory the slots of launches in flight may hold before a launch
// that finds no free slot waits for one the worker gives back rather than
// pinning more. A program that queues launches faster than they run (and
// are merged) would otherwise pin a new log for each: 64 MiB for a kernel
// that touches 128 MiB, which took 20-30 ms to pin on the H200 machines,
// while the GPU idled (precise_cost's 20 queued launches: 49 ms a launch
// on the host before, 15 with the budget and the merge reading the log once).
inline constexpr size_t kPinnedBudgetBytes = size_t{256} << 20;
// Whether a launch that found no free slot waits for one: a new slot of
// `wanted_bytes` would take the pinned memory past the budget, and launches
// of its context are in flight, whose slots come back once merged.
bool WaitsForSlot(size_t pinned_bytes, size_t wanted_bytes, size_t slots_in_flight);

}  // namespace streamcheck::tracer::precise
