// The host-side work the tracer adds to one kernel launch, without CUDA: the
// argument matching of kernel_arguments.h over a (const float*, float*, int)
// kernel and the engine's processing of the launch record, in the shape of
// tests/gpu/bench/launch_rate.cu (4 non-blocking streams, an event fork/join
// every 64 launches). The GPU benchmark measures the whole cost per launch;
// this one splits off what is ours to make faster.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "runtime/engine.h"
#include "tracer/analysis_worker.h"
#include "tracer/frameworks/framework_ops.h"
#include "tracer/stacks/host_stacks.h"
#include "tracer/kernel_access/kernel_arguments.h"

namespace streamcheck::bench {
namespace {

constexpr int kStreams = 4, kJoinEvery = 64;
constexpr Address kX = 0x7f0000000000, kBufferBytes = 4096;
Address BufferOf(int stream) { return kX + Address(stream + 1) * 0x100000; }
Handle StreamHandle(int i) { return 0x5000 + Handle(i) * 0x10; }
Handle EventHandle(int i) { return 0x9000 + Handle(i) * 0x10; }

const std::vector<tracer::ParamSlot> kLayout = {
    {0, 8, AccessMode::kRead}, {8, 8, AccessMode::kUnknown}, {16, 4, AccessMode::kUnknown}};

struct LaunchRateModel {
  Engine engine{nullptr};
  tracer::AllocationBounds bounds;
  TraceRecord launch, record, wait;
  uint64_t k = 0;

  LaunchRateModel() {
    TraceRecord r;
    for (int i = 0; i < kStreams; ++i) {
      r.Clear(), r.op = OpCode::kStreamCreate, r.thread = 1, r.stream = StreamHandle(i), r.flags = 1;
      engine.Process(r);
      r.Clear(), r.op = OpCode::kEventCreate, r.thread = 1, r.event = EventHandle(i);
      engine.Process(r);
    }
    for (int i = -1; i < kStreams; ++i) {
      const Address base = i < 0 ? kX : BufferOf(i);
      r.Clear(), r.op = OpCode::kMalloc, r.thread = 1, r.dst = base, r.size = kBufferBytes;
      engine.Process(r);
      bounds.Add(base, kBufferBytes, MemoryKind::kDevice);
    }
    launch.op = OpCode::kKernelLaunch, launch.thread = 1, launch.api = 1, launch.name = 2;
    record.op = OpCode::kEventRecord, record.thread = 1;
    wait.op = OpCode::kStreamWaitEvent, wait.thread = 1;
  }

  // One launch as the tracer handles it: arguments to accesses, then the
  // engine; or, with a worker, queued for the engine on the worker's thread.
  void Launch(bool match_arguments, tracer::AnalysisWorker* worker = nullptr) {
    const int i = int(k % kStreams);
    const Address x = kX, y = BufferOf(i);
    const int n = 1024;
    launch.stream = StreamHandle(i);
    if (match_arguments) {
      const void* values[] = {&x, &y, &n};
      tracer::MatchPointerArguments(kLayout, [&](size_t p) { return static_cast<const char*>(values[p]); }, bounds,
                                    &launch.accesses);
    } else if (launch.accesses.empty()) {
      launch.accesses = {{x, kBufferBytes, AccessMode::kRead}, {y, kBufferBytes, AccessMode::kUnknown}};
    }
    Process(launch, worker);
    if (k % kJoinEvery == kJoinEvery - 1) {
      for (int j = 1; j < kStreams; ++j) Sync(j, 0, worker);
      for (int j = 1; j < kStreams; ++j) Sync(0, j, worker);
    }
    ++k;
  }
  void Sync(int from, int to, tracer::AnalysisWorker* worker) {
    record.event = EventHandle(from), record.stream = StreamHandle(from);
    Process(record, worker);
    wait.event = EventHandle(from), wait.stream = StreamHandle(to);
    Process(wait, worker);
  }
  void Process(TraceRecord& r, tracer::AnalysisWorker* worker) {
    if (worker == nullptr) return engine.Process(r);
    worker->Push(r);
  }
};

// Arg 0: the engine only (accesses given); 1: argument matching, then the engine.
void BM_Launch(benchmark::State& state) {
  LaunchRateModel m;
  const bool match_arguments = state.range(0) != 0;
  for (auto _ : state) m.Launch(match_arguments);
  state.SetItemsProcessed(state.iterations());
  if (m.engine.stats().findings != 0) state.SkipWithError("the race-free workload produced findings");
}
BENCHMARK(BM_Launch)->ArgName("match_arguments")->Arg(0)->Arg(1);

// The program's own time per launch (CUDA's and CUPTI's included): about a
// microsecond, during which a worker thread catches up.
void ProgramWork(int64_t ns) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
  while (std::chrono::steady_clock::now() < until) {
  }
}

// A launch with the program's own work around it, the engine either inline
// (arg queued=0) or on the analysis worker (tracer/analysis_worker.h; 1).
// Real time: the worker's thread works meanwhile, on another core if there is one.
void BM_LaunchWithProgramWork(benchmark::State& state) {
  LaunchRateModel m;
  std::unique_ptr<tracer::AnalysisWorker> worker;
  if (state.range(0) != 0) worker = std::make_unique<tracer::AnalysisWorker>([&](TraceRecord& r) { m.engine.Process(r); });
  for (auto _ : state) {
    ProgramWork(state.range(1));
    m.Launch(/*match_arguments=*/true, worker.get());
  }
  if (worker) worker->Stop();
  state.SetItemsProcessed(state.iterations());
  if (m.engine.stats().findings != 0) state.SkipWithError("the race-free workload produced findings");
}
BENCHMARK(BM_LaunchWithProgramWork)->ArgNames({"queued", "program_ns"})->ArgsProduct({{0, 1}, {0, 1000}})->UseRealTime();

// A PyTorch _foreach launch inside its op: one struct parameter holding 330
// tensor pointers (3 lists of 110, as multi_tensor_apply passes them) into
// pool blocks, refined by the op's 330 tensor regions.
void BM_ForeachLaunchArguments(benchmark::State& state) {
  constexpr int kTensors = 330;
  constexpr Address kSegment = 0x7f0000000000, kBlock = 4096;
  tracer::AllocationBounds bounds;
  bounds.Add(kSegment, kTensors * kBlock, MemoryKind::kDevice);
  // The pointers, then as many words of sizes and scalars (multi_tensor_apply's
  // numel_for_tensor, block_to_tensor, block_to_chunk).
  std::vector<uint64_t> words(2 * kTensors);
  std::vector<StreamcheckTensorRegion> regions;
  for (int i = 0; i < kTensors; ++i) {
    words[i] = kSegment + Address(i) * kBlock;
    bounds.AddPoolBlock(words[i], kBlock);
    regions.push_back({words[i], words[i] + kBlock, uint8_t(i < 110)});
    words[kTensors + i] = uint64_t(i) * 1024 + 7;
  }
  const std::vector<tracer::ParamSlot> layout = {{0, words.size() * 8, AccessMode::kUnknown}};
  tracer::FrameworkOpStack program_ops;
  program_ops.Begin(1, 0, regions.data(), regions.size());
  TraceRecord launch, open_ops;
  program_ops.Publish(&launch, &open_ops);
  tracer::OpRegionStack ops;
  ops.Apply(open_ops);
  std::vector<MemoryAccess> accesses;
  for (auto _ : state) {
    tracer::MatchPointerArguments(layout, [&](size_t) { return reinterpret_cast<const char*>(words.data()); }, bounds,
                                  &accesses);
    ops.Refine(&accesses);
    benchmark::DoNotOptimize(accesses.data());
  }
  state.SetItemsProcessed(state.iterations());
  if (accesses.size() != kTensors) state.SkipWithError("expected one access per tensor");
}
BENCHMARK(BM_ForeachLaunchArguments);

// The program thread's part of a PyTorch launch's arguments: the words of
// its parameters read and kept where they fall inside the allocations'
// span. PyTorch's kernels take their iterators by value: an elementwise
// kernel's functor holds an OffsetCalculator of 25 dimensions (sizes,
// strides, dividers: some 600 bytes) and three data pointers, a reduction's
// ReduceOp about 1 KiB with a few. `bytes`: the struct parameter's size.
void BM_CollectPointerWords(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  constexpr Address kSegment = 0x7f0000000000;
  tracer::AddressSpan span;
  span.Widen(kSegment, Address{1} << 30);
  std::vector<uint64_t> words(bytes / 8);
  for (size_t i = 0; i < words.size(); ++i) words[i] = (i * 2654435761u) % 4096;  // sizes, strides, dividers
  for (size_t i = 0; i < 3 && i < words.size(); ++i) words[i * words.size() / 3] = kSegment + i * 0x10000;
  const int32_t n = 1 << 20;
  const std::vector<tracer::ParamSlot> layout = {{0, 4, AccessMode::kUnknown}, {8, bytes, AccessMode::kUnknown}};
  std::vector<MemoryAccess> out;
  for (auto _ : state) {
    tracer::CollectPointerWords(
        layout,
        [&](size_t i) {
          return i == 0 ? reinterpret_cast<const char*>(&n) : reinterpret_cast<const char*>(words.data());
        },
        span, &out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations());
  if (out.size() != 3) state.SkipWithError("expected the three data pointers");
}
BENCHMARK(BM_CollectPointerWords)->ArgName("bytes")->Arg(64)->Arg(600)->Arg(1024);

// A caching allocator's churn as the tracer books it (AllocationBounds): with
// `live` blocks in one segment, a block is given back and handed out again
// at the same address (PyTorch reuses same-sized blocks each iteration).
void BM_PoolBlockReuse(benchmark::State& state) {
  const int live = int(state.range(0));
  constexpr Address kSegment = 0x7f0000000000, kBlock = 4096;
  tracer::AllocationBounds bounds;
  bounds.Add(kSegment, Address(live) * kBlock, MemoryKind::kDevice);
  for (int i = 0; i < live; ++i) bounds.AddPoolBlock(kSegment + Address(i) * kBlock, kBlock);
  uint64_t k = 0;
  for (auto _ : state) {
    const Address block = kSegment + Address((k++ * 7919) % live) * kBlock;  // a stride through the blocks
    bounds.RemovePoolBlock(block);
    bounds.AddPoolBlock(block, kBlock);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PoolBlockReuse)->ArgName("live_blocks")->Arg(64)->Arg(4096);

// A host stack captured from one call site 20 frames deep, as a launch loop
// does: unwound every time (recognize=0) or recognized as repeated
// (tracer/stacks/repeated_stacks.h; 1).
__attribute__((noinline)) StackId CaptureAtDepth(tracer::HostStacks& stacks, int depth) {
  if (depth > 0) {
    const StackId id = CaptureAtDepth(stacks, depth - 1);
    benchmark::DoNotOptimize(id);
    return id;
  }
  bool is_new = false;
  return stacks.Capture(&is_new);
}
void BM_HostStackCapture(benchmark::State& state) {
  tracer::HostStacks stacks(/*recognize_repeated_stacks=*/state.range(0) != 0, /*verify_repeated_stacks=*/false);
  StackId id = 0;
  for (auto _ : state) id = CaptureAtDepth(stacks, 20);
  if (id == 0) state.SkipWithError("no stack captured");
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HostStackCapture)->ArgName("recognize")->Arg(0)->Arg(1);

}  // namespace
}  // namespace streamcheck::bench

BENCHMARK_MAIN();
