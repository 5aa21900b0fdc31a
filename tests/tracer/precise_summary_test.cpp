// The precise front-end's parts that need no GPU: merging a launch's logged
// device ranges into exact accesses, choosing which launches to instrument,
// clipping what a kernel touched to the memory the program allocated, and
// sizing the log a launch gets.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <map>
#include <random>
#include <span>
#include <vector>

#include "tracer/kernel_access/access_extent.h"
#include "tracer/sanitizer/access_summary.h"
#include "tracer/sanitizer/launch_selection.h"
#include "tracer/sanitizer/log_capacity.h"
#include "tracer/sanitizer/parallel_merge.h"

namespace streamcheck::tracer::precise {
namespace {

constexpr uint32_t kR = kRangeRead, kW = kRangeWrite;

// The summary in address order.
std::vector<MemoryAccess> Summary(std::vector<AccessRange> ranges, size_t limit = 1000, bool* joined = nullptr) {
  std::vector<MemoryAccess> out;
  bool ignored = false;
  RangeMerger merger;
  merger.Add(ranges);
  merger.Take(limit, &out, joined ? joined : &ignored);
  std::sort(out.begin(), out.end(), [](const MemoryAccess& a, const MemoryAccess& b) { return a.addr < b.addr; });
  return out;
}

TEST(AccessSummary, WarpRangesOfOneBufferBecomeOneAccess) {
  // Four warps' coalesced reads, logged out of order by different SMs, and a
  // read of the same bytes again.
  EXPECT_EQ(Summary({{0x1080, 128, kR}, {0x1000, 128, kR}, {0x1180, 128, kR}, {0x1100, 128, kR}, {0x1000, 4, kR}}),
            (std::vector<MemoryAccess>{{0x1000, 512, AccessMode::kRead}}));
}

TEST(AccessSummary, ReadAndWrittenBytesTakeTheirModes) {
  // Read [0, 96), written [64, 128): read only, both, written only.
  EXPECT_EQ(Summary({{0x1000, 96, kR}, {0x1040, 64, kW}}),
            (std::vector<MemoryAccess>{{0x1000, 64, AccessMode::kRead},
                                       {0x1040, 32, AccessMode::kReadWrite},
                                       {0x1060, 32, AccessMode::kWrite}}));
  // An atomic reads and writes.
  EXPECT_EQ(Summary({{0x2000, 4, kR | kW | kRangeAtomicSystem}}),
            (std::vector<MemoryAccess>{{0x2000, 4, AccessMode::kReadWrite}}));
}

TEST(AccessSummary, RangesAcrossPagesAndOneMergerForManyLaunches) {
  RangeMerger merger;
  std::vector<MemoryAccess> out;
  bool joined = false;
  // 10 KiB from the middle of a page, and one byte on the next-but-one page.
  const std::vector<AccessRange> first{{0x10800, 10240, kW}}, second{{0x13fff, 1, kW}};
  merger.Add(first);
  merger.Add(second);
  merger.Take(100, &out, &joined);
  EXPECT_EQ(out, (std::vector<MemoryAccess>{{0x10800, 10240, AccessMode::kWrite}, {0x13fff, 1, AccessMode::kWrite}}));
  // The next launch starts from nothing.
  const std::vector<AccessRange> next{{0x10800, 1, kR}};
  merger.Add(next);
  merger.Take(100, &out, &joined);
  EXPECT_EQ(out, (std::vector<MemoryAccess>{{0x10800, 1, AccessMode::kRead}}));
}

// The segments of a log, ranges dealt to them in turn.
std::vector<std::span<const AccessRange>> Segments(const std::vector<AccessRange>& ranges, size_t segments) {
  std::vector<std::span<const AccessRange>> out;
  const size_t per = (ranges.size() + segments - 1) / segments;
  for (size_t at = 0; at < ranges.size(); at += per) out.push_back({ranges.data() + at, std::min(per, ranges.size() - at)});
  return out;
}

TEST(ParallelMerge, SeveralThreadsGiveWhatOneGives) {
  // Ranges across many pages, some across page boundaries, read and
  // written, an atomic, and one range across 17 pages.
  std::vector<AccessRange> ranges;
  for (uint64_t i = 0; i < 200; ++i) ranges.push_back({0x100000 + i * 300, 200, i % 3 == 0 ? kW : kR});
  ranges.push_back({0x100000, 70000, kR});
  ranges.push_back({0x140ffe, 4, kR | kW | kRangeAtomicSystem});
  const std::vector<MemoryAccess> one = Summary(ranges);
  ASSERT_GT(one.size(), 100u);
  for (uint32_t threads : {2u, 3u, 8u}) {
    ParallelMerge merge(threads, /*parallel_ranges=*/1);
    for (int launch = 0; launch < 2; ++launch) {  // the second reuses the threads and buckets
      std::vector<MemoryAccess> out;
      bool joined = true;
      merge.Merge(Segments(ranges, 7), 1000, &out, &joined);
      EXPECT_FALSE(joined);
      std::sort(out.begin(), out.end(), [](const MemoryAccess& a, const MemoryAccess& b) { return a.addr < b.addr; });
      EXPECT_EQ(out, one) << threads << " threads, launch " << launch;
    }
  }
}

TEST(ParallelMerge, TheLimitHoldsForThePiecesJoined) {
  // Every other 4-byte word of 64 KiB read: 8192 accesses, cut at 16 pages.
  std::vector<AccessRange> ranges;
  for (uint64_t i = 0; i < 8192; ++i) ranges.push_back({0x200000 + i * 8, 4, kR});
  ParallelMerge merge(4, 1);
  std::vector<MemoryAccess> out;
  bool joined = false;
  merge.Merge(Segments(ranges, 64), 300, &out, &joined);
  EXPECT_TRUE(joined);
  EXPECT_LE(out.size(), 300u);
  merge.Merge(Segments(ranges, 64), 10000, &out, &joined);
  EXPECT_FALSE(joined);
  EXPECT_EQ(out.size(), 8192u);
}

TEST(ParallelMerge, AForkedChildMergesWithThreadsOfItsOwn) {
  // The parent's helper threads are not in the child: waiting for them
  // would hang it (a SIGALRM ends the child then, and the test fails).
  std::vector<AccessRange> ranges;
  for (uint64_t i = 0; i < 64; ++i) ranges.push_back({0x300000 + i * 4096, 128, kW});
  ParallelMerge merge(4, 1);
  std::vector<MemoryAccess> out;
  bool joined = false;
  merge.Merge(Segments(ranges, 8), 1000, &out, &joined);
  ASSERT_EQ(out.size(), 64u);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(10);
    merge.Merge(Segments(ranges, 8), 1000, &out, &joined);
    _exit(out.size() == 64 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
}

TEST(ParallelMerge, ASmallLaunchIsMergedOnTheCallersThread) {
  ParallelMerge merge(8, /*parallel_ranges=*/100);
  std::vector<MemoryAccess> out;
  bool joined = false;
  const std::vector<AccessRange> ranges{{0x1000, 128, kR}, {0x1080, 128, kR}};
  merge.Merge(Segments(ranges, 2), 10, &out, &joined);
  EXPECT_EQ(out, (std::vector<MemoryAccess>{{0x1000, 256, AccessMode::kRead}}));
}

// What a launch's ranges touched, byte by byte: the accesses a merge must give.
std::vector<MemoryAccess> ByteByByte(const std::vector<AccessRange>& ranges) {
  std::map<Address, uint32_t> modes;  // byte -> kRangeRead | kRangeWrite
  for (const AccessRange& r : ranges)
    for (Address a = r.address; a < r.address + r.size; ++a) modes[a] |= r.flags & (kRangeRead | kRangeWrite);
  std::vector<MemoryAccess> out;
  for (auto [address, flags] : modes) {
    if (flags == 0) continue;
    const AccessMode mode = flags == kRangeRead ? AccessMode::kRead : flags == kRangeWrite ? AccessMode::kWrite
                                                                                           : AccessMode::kReadWrite;
    if (!out.empty() && out.back().mode == mode && out.back().addr + out.back().size == address) ++out.back().size;
    else out.push_back({address, 1, mode});
  }
  return out;
}

TEST(AccessSummary, RandomRangesGiveWhatTheirBytesGive) {
  // Warps' windows out of order, repeats, overlaps, runs continued by the
  // next range, atomics and prefetches, over a few pages: the run joiner's
  // table (its places collide) and the pages' bitmaps against a byte map.
  std::mt19937_64 random(7);
  for (int round = 0; round < 60; ++round) {
    std::vector<AccessRange> ranges;
    const int n = 1 + static_cast<int>(random() % 3000);
    for (int i = 0; i < n; ++i) {
      const uint32_t flags = std::array<uint32_t, 5>{kR, kW, kR, kR | kW | kRangeAtomicSystem, kRangePrefetch}[random() % 5];
      const Address at = 0x40000 + random() % 20000;
      const uint32_t size = std::array<uint32_t, 4>{1, 4, 128, 700}[random() % 4];
      ranges.push_back({at, size, flags});
      // Often the next range continues this one.
      if (random() % 2) ranges.push_back({at + size, size, flags});
    }
    ASSERT_EQ(Summary(ranges, SIZE_MAX), ByteByByte(ranges)) << "round " << round;
  }
}

TEST(AccessSummary, GapsStayGaps) {
  // A stencil's halo read one element past its chunk, and nothing between.
  EXPECT_EQ(Summary({{0x1000, 256, kR}, {0x1100, 4, kR}, {0x2000, 4, kW}}),
            (std::vector<MemoryAccess>{{0x1000, 260, AccessMode::kRead}, {0x2000, 4, AccessMode::kWrite}}));
  EXPECT_EQ(Summary({{0x1000, 4, kR}, {0x1008, 4, kR}}),
            (std::vector<MemoryAccess>{{0x1000, 4, AccessMode::kRead}, {0x1008, 4, AccessMode::kRead}}));
  EXPECT_TRUE(Summary({}).empty());
}

TEST(AccessSummary, PastTheLimitTheClosestNeighboursAreJoined) {
  std::vector<AccessRange> scattered;
  for (uint64_t i = 0; i < 10; ++i) scattered.push_back({0x1000 + i * 16 + (i == 5 ? 1000 : 0), 4, kR});
  bool joined = false;
  const auto out = Summary(scattered, 6, &joined);  // two accesses of each mode at most
  EXPECT_TRUE(joined);
  ASSERT_EQ(out.size(), 2u);
  // The widest gap (before the read moved 1000 bytes up) stays.
  EXPECT_EQ(out[0], (MemoryAccess{0x1000, 9 * 16 + 4, AccessMode::kRead}));
  EXPECT_EQ(out[1].addr, 0x1000u + 5 * 16 + 1000);
  bool not_joined = true;
  Summary(scattered, 100, &not_joined);
  EXPECT_FALSE(not_joined);
}

TEST(LaunchSelection, GlobMatchesTheWholeNameOrTheNameWithoutItsParameters) {
  const KernelSelection all("*"), none(""), scale("scale"), ns("ns::*"), whole("scale(float const*, float*)");
  EXPECT_TRUE(all.Selects("scale(float const*, float*)"));
  EXPECT_TRUE(none.Selects("anything"));
  EXPECT_TRUE(scale.Selects("scale(float const*, float*)"));
  EXPECT_FALSE(scale.Selects("scale2(float*)"));
  EXPECT_TRUE(ns.Selects("ns::fill(float*, int)"));
  EXPECT_FALSE(ns.Selects("fill(float*, int)"));
  EXPECT_TRUE(whole.Selects("scale(float const*, float*)"));
}

TEST(LaunchSelection, VendorLibrariesByFileName) {
  EXPECT_EQ(VendorLibraryOf("/usr/local/cuda/lib64/libcublasLt.so.13"), "cuBLAS");
  EXPECT_EQ(VendorLibraryOf("/opt/torch/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn_engines_precompiled.so.9"),
            "cuDNN");
  EXPECT_EQ(VendorLibraryOf("libnccl.so.2"), "NCCL");
  EXPECT_EQ(VendorLibraryOf("/opt/torch/lib/libtorch_cuda.so"), "");  // PyTorch's own kernels are instrumented
  EXPECT_EQ(VendorLibraryOf("/home/me/app"), "");
}

TEST(AllocationBounds, ClipToKnownKeepsOnlyAllocatedBytes) {
  AllocationBounds b;
  b.Add(0x10000, 0x1000, MemoryKind::kDevice);
  b.Add(0x20000, 0x1000, MemoryKind::kDevice);
  std::vector<MemoryAccess> out;
  // From inside the first allocation across a hole into the second.
  b.ClipToKnown({0x10f00, 0x10200, AccessMode::kRead}, &out);
  EXPECT_EQ(out, (std::vector<MemoryAccess>{{0x10f00, 0x100, AccessMode::kRead}, {0x20000, 0x1000, AccessMode::kRead}}));
  out.clear();
  b.ClipToKnown({0x30000, 0x100, AccessMode::kWrite}, &out);  // the driver's own memory
  EXPECT_TRUE(out.empty());
  // A caching allocator's segment counts through its live blocks only.
  b.AddPoolBlock(0x10000, 0x100);
  b.ClipToKnown({0x10000, 0x1000, AccessMode::kWrite}, &out);
  EXPECT_EQ(out, (std::vector<MemoryAccess>{{0x10000, 0x100, AccessMode::kWrite}}));
}

}  // namespace
}  // namespace streamcheck::tracer::precise

namespace streamcheck::tracer::precise {
namespace {

size_t PinnedLogBytes(uint32_t segment_capacity) { return size_t{kSegments} * segment_capacity * sizeof(AccessRange); }

TEST(LogCapacity, ASingleThreadKernelGetsASmallLog) {
  // simpleHyperQ's <<<1, 1>>> kernels, 64 in flight at once: 1 MiB of
  // pinned log each, not 16 MiB.
  EXPECT_EQ(FirstLaunchCapacity(1, 1), kMinSegmentCapacity);
  EXPECT_LE(PinnedLogBytes(FirstLaunchCapacity(1, 1)), size_t{1} << 20);
  // One block of 1024 threads: its 32 warps share one SM's segment.
  EXPECT_EQ(FirstLaunchCapacity(1, 1024), 16384u);
  EXPECT_EQ(FirstLaunchCapacity(1, 256), 4096u);
}

TEST(LogCapacity, ALargeFirstLaunchGetsAMillionRanges) {
  // simpleStreams' 65536 blocks of 256 threads: as much as a first launch gets.
  EXPECT_EQ(FirstLaunchCapacity(65536, 256), kFirstLaunchCapacity);
  EXPECT_EQ(size_t{kSegments} * FirstLaunchCapacity(65536, 256), size_t{1} << 20);
  // In between, a segment's room grows with the warps it may run: up to
  // 64 blocks each may have a segment of its own.
  EXPECT_EQ(FirstLaunchCapacity(4, 64), FirstLaunchCapacity(64, 64));
  EXPECT_LT(FirstLaunchCapacity(64, 64), FirstLaunchCapacity(512, 64));
}

TEST(LogCapacity, ALaterLaunchGetsWhatItsKernelNeededTwiceOver) {
  // A kernel that needed 0.5 ranges a thread in its fullest segment, now
  // launched with 65536 threads: 65536, the next power of two of twice that.
  EXPECT_EQ(RegrownCapacity(0.5, 65536), 65536u);
  EXPECT_EQ(RegrownCapacity(0.5, 65537), 131072u);
  EXPECT_EQ(RegrownCapacity(1e9, 1 << 20), kMaxSegmentCapacity);
  EXPECT_EQ(RegrownCapacity(0, 1 << 20), kMinSegmentCapacity);
}

TEST(LogCapacity, PastThePinnedBudgetALaunchWaitsForASlotInFlight) {
  constexpr size_t kMiB = size_t{1} << 20;
  // Within the budget: a new slot at once.
  EXPECT_FALSE(WaitsForSlot(128 * kMiB, 64 * kMiB, 2));
  // Past it, with launches in flight whose slots will come back: wait.
  EXPECT_TRUE(WaitsForSlot(kPinnedBudgetBytes - 32 * kMiB, 64 * kMiB, 1));
  // None in flight: nothing to wait for.
  EXPECT_FALSE(WaitsForSlot(kPinnedBudgetBytes, 64 * kMiB, 0));
}

}  // namespace
}  // namespace streamcheck::tracer::precise
