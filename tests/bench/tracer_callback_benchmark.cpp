// The whole of what the tracer adds to a kernel launch on the program's
// thread, without a GPU: CUPTI's payloads for cuLaunchKernel (entry and exit)
// are made up (tests/common/fake_driver.h) and handed to the tracer's callback
// handler, as CUPTI would hand them, in the shape of
// tests/gpu/bench/launch_rate.cu (4 non-blocking streams, an event fork/join
// every 64 launches). The five driver calls the tracer makes are answered by
// tests/common/fake_driver.cpp. The analysis worker, which matches the
// arguments against the allocations, runs on its own thread (another core).
//
// Between two launches a real program runs the CUDA driver and CUPTI, which
// push the tracer's tables out of the caches; arg `program_kib` stands for
// that by writing so many KiB of other memory per launch. The tracer's cost
// per launch is the row's time less BM_ProgramAlone's at the same size.
#include <benchmark/benchmark.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>

#include <memory>
#include <mutex>
#include <vector>

#include "tests/common/fake_driver.h"
#include "tracer/cupti/cupti_callbacks.h"
#include "tracer/host/host_guards.h"
#include "tracer/tracer.h"

namespace streamcheck::bench {
namespace {

using fake_cuda::Call;
using fake_cuda::LaunchFakeKernel;

constexpr int kStreams = 4, kJoinEvery = 64;
constexpr size_t kBufferBytes = 4096;

// Writes `bytes` of a buffer of its own, a cache line at a time: the
// program's (driver's, CUPTI's) work between two launches.
class ProgramWork {
 public:
  explicit ProgramWork(size_t bytes) : memory_(bytes / sizeof(uint64_t)) {}
  void Run() {
    for (size_t i = 0; i < memory_.size(); i += 8) memory_[i] += 1;
    benchmark::ClobberMemory();
  }

 private:
  std::vector<uint64_t> memory_;
};

// With `host_guards`, the guard pages are on (tracer/host/host_guards.h);
// with `pinned` too, a pinned allocation lies among the device ones, so every
// launch's argument words are looked up among the guarded regions (and none
// is in one).
class LaunchRateProgram {
 public:
  explicit LaunchRateProgram(bool host_guards = false, bool pinned = false)
      : tracer_(std::make_unique<tracer::Tracer>(tracer::TracerConfig{})) {
    if (host_guards) tracer_->set_host_guards(tracer::host::HostGuards::Start(*tracer_, true));
    if (pinned) {
      void* p = reinterpret_cast<void*>(next_address_ + 8 * 0x100000);
      Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020, "cudaHostAlloc",
              cudaHostAlloc_v3020_params{&p, kBufferBytes, 0});
    }
    x_ = Malloc();
    for (int i = 0; i < kStreams; ++i) {
      y_[i] = Malloc();
      cudaStream_t stream = reinterpret_cast<cudaStream_t>(0x5000 + 0x10 * i);
      Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000, "cudaStreamCreateWithFlags",
              cudaStreamCreateWithFlags_v5000_params{&stream, cudaStreamNonBlocking});
      streams_[i] = stream;
      events_[i] = reinterpret_cast<CUevent>(0x9000 + 0x10 * i);  // creating one is no record
    }
  }
  ~LaunchRateProgram() { tracer_->Finish(); }

  // kernel<<<1, 256, 0, streams[i]>>>(x, y[i], n), through cuLaunchKernel.
  void Launch() {
    const int i = static_cast<int>(k_ % kStreams);
    LaunchFakeKernel(tracer_.get(), x_, y_[i], reinterpret_cast<CUstream>(streams_[i]));
    if (k_ % kJoinEvery == kJoinEvery - 1) {
      for (int j = 1; j < kStreams; ++j) Join(j, 0);
      for (int j = 1; j < kStreams; ++j) Join(0, j);
    }
    ++k_;
  }
  tracer::Tracer& tracer() { return *tracer_; }

 private:
  template <typename Params>
  void Runtime(CUpti_CallbackId cbid, const char* name, const Params& params) {
    Call(tracer_.get(), CUPTI_CB_DOMAIN_RUNTIME_API, cbid, name, params);
  }
  void* Malloc() {
    void* p = reinterpret_cast<void*>(next_address_);
    next_address_ += 0x100000;
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, "cudaMalloc", cudaMalloc_v3020_params{&p, kBufferBytes});
    return p;
  }
  // cudaEventRecord and cudaStreamWaitEvent, as the driver calls they make.
  void Join(int from, int to) {
    const auto from_stream = reinterpret_cast<CUstream>(streams_[from]);
    Call(tracer_.get(), CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuEventRecord, "cuEventRecord",
         cuEventRecord_params{events_[from], from_stream});
    Call(tracer_.get(), CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, "cuStreamWaitEvent",
         cuStreamWaitEvent_params{reinterpret_cast<CUstream>(streams_[to]), events_[from], 0});
  }

  std::unique_ptr<tracer::Tracer> tracer_;
  uintptr_t next_address_ = 0x7f0000000000;
  void* x_ = nullptr;
  void* y_[kStreams] = {};
  cudaStream_t streams_[kStreams] = {};
  CUevent events_[kStreams] = {};
  uint64_t k_ = 0;
};

void BM_ProgramAlone(benchmark::State& state) {
  ProgramWork program(static_cast<size_t>(state.range(0)) << 10);
  for (auto _ : state) program.Run();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ProgramAlone)->ArgName("program_kib")->Arg(0)->Arg(64)->Arg(256)->UseRealTime();

// Real time: the analysis worker runs meanwhile, on another core.
void BM_TracedLaunch(benchmark::State& state) {
  ProgramWork program(static_cast<size_t>(state.range(0)) << 10);
  LaunchRateProgram launches;
  for (auto _ : state) {
    program.Run();
    launches.Launch();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TracedLaunch)->ArgName("program_kib")->Arg(0)->Arg(64)->Arg(256)->UseRealTime();

// A launch with the lock/unlock pairs a framework makes around it (PyTorch's
// caching allocator, its dispatcher): run with LD_PRELOAD=libstreamcheck_preload.so
// to see what observing the program's synchronization adds.
void BM_TracedLaunchWithLocks(benchmark::State& state) {
  ProgramWork program(static_cast<size_t>(state.range(0)) << 10);
  LaunchRateProgram launches;
  std::mutex allocator, dispatcher;
  for (auto _ : state) {
    program.Run();
    for (std::mutex* m : {&allocator, &dispatcher, &allocator, &dispatcher}) {
      m->lock();
      m->unlock();
    }
    launches.Launch();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TracedLaunchWithLocks)->ArgName("program_kib")->Arg(0)->Arg(64)->UseRealTime();

// The same with the host guards on (the preloaded library's interposers are
// linked in): args program_kib, pinned (0: no pinned memory, 1: a pinned
// allocation among the device ones).
void BM_TracedLaunchWithHostGuards(benchmark::State& state) {
  ProgramWork program(static_cast<size_t>(state.range(0)) << 10);
  LaunchRateProgram launches(/*host_guards=*/true, /*pinned=*/state.range(1) != 0);
  for (auto _ : state) {
    program.Run();
    launches.Launch();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TracedLaunchWithHostGuards)
    ->ArgNames({"program_kib", "pinned"})
    ->Args({0, 0})->Args({0, 1})->Args({64, 0})->Args({64, 1})
    ->UseRealTime();

// A caching allocator's block events as the PyTorch plugin reports them
// (framework_hooks.h): a block handed out on a stream and given back, at one
// of 64 addresses inside one segment, as an eager loop's temporaries are.
void BM_PoolBlockEvents(benchmark::State& state) {
  ProgramWork program(static_cast<size_t>(state.range(0)) << 10);
  LaunchRateProgram program_state;  // the tracer, with a segment the blocks lie in
  tracer::Tracer& t = program_state.tracer();
  constexpr Address kSegment = 0x7f0000000000, kBlock = 512;
  uint64_t k = 0;
  for (auto _ : state) {
    program.Run();
    const Address block = kSegment + (k++ % 64) * kBlock;
    std::lock_guard<tracer::TracerLock> lock(t.tracer_lock());
    t.PoolBlock(STREAMCHECK_BLOCK_ALLOCATED, block, kBlock, 0x5000, 0, STREAMCHECK_STACK_NONE);
    t.PoolBlock(STREAMCHECK_BLOCK_FREED, block, 0, 0x5000, 0, STREAMCHECK_STACK_NONE);
  }
  state.SetItemsProcessed(2 * state.iterations());
}
BENCHMARK(BM_PoolBlockEvents)->ArgName("program_kib")->Arg(0)->Arg(64)->UseRealTime();

}  // namespace
}  // namespace streamcheck::bench
BENCHMARK_MAIN();
