// The precise front-end's host side of a memory-bound launch: merging the
// ranges its patches logged (a range per warp and access instruction) into
// the launch's exact accesses, on one thread and on several. The log is
// precise_cost.cu's kernel's: a grid-stride loop over 16M floats, 1024
// blocks of 256 threads reading `in` and writing `out` 64 MiB above it, a
// million ranges dealt to 64 segments by block, as SMs take blocks. In
// order: each block's warps one after another; interleaved: the warps of a
// segment's 16 blocks in turn, as an SM runs its blocks at once.
#include <benchmark/benchmark.h>

#include <span>
#include <vector>

#include "tracer/sanitizer/parallel_merge.h"

namespace streamcheck::tracer::precise {
namespace {

struct Log {
  std::vector<std::vector<AccessRange>> segments;
  std::vector<std::span<const AccessRange>> spans;
};

Log ElementwiseLog(bool interleaved) {
  constexpr uint64_t kIn = 0x7f0000000000ull, kOut = kIn + (64ull << 20), kElements = 16u << 20;
  constexpr uint64_t kBlocks = 1024, kWarpsPerBlock = 8, kThreads = kBlocks * kWarpsPerBlock * 32;
  Log log;
  log.segments.resize(kSegments);
  for (uint64_t k = 0; k < kElements / kThreads; ++k)
    for (uint64_t i = 0; i < kBlocks * kWarpsPerBlock; ++i) {
      // In order: i = block, warp; interleaved: i = warp, block.
      const uint64_t block = interleaved ? i % kBlocks : i / kWarpsPerBlock;
      const uint64_t warp = interleaved ? i / kBlocks : i % kWarpsPerBlock;
      const uint64_t first = k * kThreads + (block * kWarpsPerBlock + warp) * 32;
      auto& segment = log.segments[block % kSegments];
      segment.push_back({kIn + first * 4, 128, kRangeRead});
      segment.push_back({kOut + first * 4, 128, kRangeWrite});
    }
  for (const auto& segment : log.segments) log.spans.push_back(segment);
  return log;
}

void BM_MergeElementwiseLaunch(benchmark::State& state) {
  static const Log in_order = ElementwiseLog(false), interleaved = ElementwiseLog(true);
  const Log& log = state.range(1) ? interleaved : in_order;
  ParallelMerge merge(static_cast<uint32_t>(state.range(0)), 1);
  std::vector<MemoryAccess> out;
  bool joined = false;
  for (auto _ : state) {
    merge.Merge(log.spans, 8192, &out, &joined);
    benchmark::DoNotOptimize(out.data());
  }
  if (out.size() != 2) state.SkipWithError("expected one read and one written access");
  state.SetItemsProcessed(state.iterations() * int64_t{1 << 20});
}
BENCHMARK(BM_MergeElementwiseLaunch)
    ->ArgsProduct({{1, 2, 8}, {0, 1}})
    ->ArgNames({"threads", "interleaved"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace streamcheck::tracer::precise

BENCHMARK_MAIN();
