// The tracer with the preloaded library (ctest runs this binary with
// LD_PRELOAD): a thread that synchronized hands the buffer to another thread,
// and the trace says how, so the engine orders the other thread's launch
// after the synchronize only when the handover is one it can see.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/trace/trace_io.h"
#include "tests/common/fake_driver.h"
#include "tests/runtime/finding_matchers.h"
#include "tests/runtime/trace_builder.h"
#include "tests/trace/trace_test_util.h"
#include "tracer/tracer.h"

// Stand-ins for a statically linked CUDA runtime's internal functions
// (cudart 13 names them so; tracer/host_threads/static_cuda_runtime.h): the locks they
// take themselves are the runtime's, not the program's.
#define STAND_IN extern "C" __attribute__((noinline, used, visibility("hidden")))
STAND_IN void libcudart_static_5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e(pthread_mutex_t* m, bool* ready) {
  pthread_mutex_lock(m);
  *ready = true;
  pthread_mutex_unlock(m);
}
STAND_IN bool libcudart_static_0ddba11c0ddba11c0ddba11c0ddba11c0ddba11c(pthread_mutex_t* m, const bool* ready) {
  pthread_mutex_lock(m);
  const bool was = *ready;
  pthread_mutex_unlock(m);
  return was;
}

namespace streamcheck::tracer {
namespace {

using fake_cuda::Call;

// How the main thread hands the buffer over after its synchronize.
enum class Handover {
  kProgramsLock,     // a mutex and condition variable of the program's
  kUnseen,           // an atomic flag the library does not see
  kRuntimesLock,     // a lock taken by the (statically linked) runtime's code
  kInsideRuntimeCall,  // the program's lock, but inside a CUDA runtime call (as the runtime's are)
};

class TracerThreadOrder : public ::testing::Test {
 protected:
  void SetUp() override {
    if (dlsym(RTLD_DEFAULT, "streamcheck_thread_order_api") == nullptr) GTEST_SKIP() << "run without the preload";
    TracerConfig config;
    config.trace_path = trace_path_;
    config.capture_stacks = false;
    // No analysis worker: its locks, in this binary the program's own code,
    // would order the test's threads (the tracer's library is left out).
    config.analysis_worker = false;
    tracer_ = std::make_unique<Tracer>(config);
  }
  void TearDown() override { std::remove(trace_path_.c_str()); }

  template <typename Params>
  void Runtime(CUpti_CallbackId cbid, const char* name, const Params& params) {
    Call(tracer_.get(), CUPTI_CB_DOMAIN_RUNTIME_API, cbid, name, params);
  }
  CUstream Stream(uintptr_t handle) {
    cudaStream_t s = reinterpret_cast<cudaStream_t>(handle);
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000, "cudaStreamCreateWithFlags",
            cudaStreamCreateWithFlags_v5000_params{&s, cudaStreamNonBlocking});
    return reinterpret_cast<CUstream>(s);
  }
  void* Malloc(uintptr_t address) {
    void* p = reinterpret_cast<void*>(address);
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, "cudaMalloc", cudaMalloc_v3020_params{&p, 4096});
    return p;
  }
  void Sync(CUstream s) {
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, "cudaStreamSynchronize",
            cudaStreamSynchronize_v3020_params{reinterpret_cast<cudaStream_t>(s)});
  }

  // The main thread fills x on its stream and synchronizes; another thread,
  // started before, reads x on its own stream once `handover` lets it.
  std::vector<TraceRecord> SyncThenHandOver(Handover handover) {
    const CUstream mine = Stream(0x5000), theirs = Stream(0x6000);
    void* x = Malloc(0x7f0000000000);
    void* y = Malloc(0x7f0000100000);
    void* z = Malloc(0x7f0000200000);
    std::mutex m;
    std::condition_variable cv;
    bool ready = false;
    std::atomic<bool> flag{false};
    pthread_mutex_t runtime_lock = PTHREAD_MUTEX_INITIALIZER;
    std::thread other([&] {
      switch (handover) {
        case Handover::kProgramsLock:
        case Handover::kInsideRuntimeCall: {
          std::unique_lock<std::mutex> lock(m);
          cv.wait(lock, [&] { return ready; });
          break;
        }
        case Handover::kUnseen:
          while (!flag.load()) std::this_thread::yield();
          break;
        case Handover::kRuntimesLock:
          while (!libcudart_static_0ddba11c0ddba11c0ddba11c0ddba11c0ddba11c(&runtime_lock, &ready))
            std::this_thread::yield();
          break;
      }
      fake_cuda::LaunchFakeKernel(tracer_.get(), x, z, theirs);
    });
    fake_cuda::LaunchFakeKernel(tracer_.get(), y, x, mine);
    Sync(mine);
    auto release = [&] {
      {
        std::lock_guard<std::mutex> lock(m);
        ready = true;
      }
      cv.notify_one();
    };
    switch (handover) {
      case Handover::kProgramsLock:
        release();
        break;
      case Handover::kUnseen:
        flag = true;
        break;
      case Handover::kRuntimesLock:
        libcudart_static_5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e(&runtime_lock, &ready);
        break;
      case Handover::kInsideRuntimeCall: {
        void* w = reinterpret_cast<void*>(0x7f0000300000);
        // The other thread's launch ends before the call's exit callback:
        // the tracer's own locks, the program's code in this binary, would
        // order it after that callback otherwise.
        fake_cuda::CallAround(tracer_.get(), CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
                              "cudaMalloc", cudaMalloc_v3020_params{&w, 4096}, [&] {
                                release();
                                other.join();
                              });
        break;
      }
    }
    if (other.joinable()) other.join();
    tracer_->Finish();
    std::string error;
    auto source = OpenTrace(trace_path_, &error);
    EXPECT_TRUE(source) << error;
    return source ? testing::ReadAll(source.get()).records : std::vector<TraceRecord>{};
  }

  static std::vector<Finding> Analyze(const std::vector<TraceRecord>& records) {

    testing::CollectingSink sink;
    Engine engine(&sink);
    for (const TraceRecord& r : records) engine.Process(r);
    engine.Finish();
    return sink.findings;
  }
  HostThreadOrder& host_thread_order() { return tracer_->host_thread_order(); }

  std::string trace_path_ = ::testing::TempDir() + "thread_order." + std::to_string(getpid()) + ".trace";
  std::unique_ptr<Tracer> tracer_;
};

TEST_F(TracerThreadOrder, EachIgnoredLibrarysImportsAreBoundOnce) {
  // libgcc_s (an ignored library, loaded by every C++ program here) imports
  // pthread's locks; the tracer scans again after loading its plugins.
  HostThreadOrder& order = host_thread_order();
  const int bound = order.rebound_calls();
  EXPECT_GT(bound, 0);
  order.IgnoreCudaAndOwnCode();
  EXPECT_EQ(order.rebound_calls(), bound);
}

TEST_F(TracerThreadOrder, AHandoverTheLibrarySeesOrdersTheOtherThread) {
  const std::vector<TraceRecord> records = SyncThenHandOver(Handover::kProgramsLock);
  ASSERT_FALSE(records.empty());
  bool per_thread = false, acquired_before_launch = false;
  ThreadId main_thread = 0;
  for (const TraceRecord& r : records) {
    if (r.op == OpCode::kHostThreadOrder) per_thread = r.flags == 1;
    if (r.op == OpCode::kStreamSynchronize) main_thread = r.thread;
    if (r.op == OpCode::kThreadAcquire && r.thread != main_thread)
      for (Handle dep : r.deps) acquired_before_launch |= ThreadOfDep(dep) == main_thread;
  }
  EXPECT_TRUE(per_thread);
  EXPECT_TRUE(acquired_before_launch);
  const std::vector<Finding> findings = Analyze(records);
  EXPECT_TRUE(findings.empty()) << testing::Summary(findings);
}

TEST_F(TracerThreadOrder, AHandoverItCannotSeeLeavesAPossibleRace) {
  const std::vector<Finding> findings = Analyze(SyncThenHandOver(Handover::kUnseen));
  ASSERT_EQ(findings.size(), 1u) << testing::Summary(findings);
  EXPECT_EQ(findings[0].rule, "cross-stream-race");
  EXPECT_EQ(findings[0].confidence, Confidence::kPossible);
  EXPECT_NE(findings[0].reason.find("host thread"), std::string::npos) << findings[0].reason;
}

// The race of tests/gpu/scenarios/thread_handover.cu (racy): cudart_static's
// locks inside the program's executable ordered the threads, and the race
// was missed.
TEST_F(TracerThreadOrder, TheStaticRuntimesLocksOrderNothing) {
  const std::vector<Finding> findings = Analyze(SyncThenHandOver(Handover::kRuntimesLock));
  ASSERT_EQ(findings.size(), 1u) << testing::Summary(findings);
  EXPECT_EQ(findings[0].confidence, Confidence::kPossible);
}

// Where no symbols name the runtime's code (a stripped program), what the
// thread synchronizes inside a traced runtime call is taken as the runtime's
// (after the call it is the program's again: the handover above).
TEST_F(TracerThreadOrder, WhatARuntimeCallSynchronizesOrdersNothing) {
  const std::vector<Finding> findings = Analyze(SyncThenHandOver(Handover::kInsideRuntimeCall));
  ASSERT_EQ(findings.size(), 1u) << testing::Summary(findings);
  EXPECT_EQ(findings[0].confidence, Confidence::kPossible);
}

// More threads making CUDA calls than a clock has entries (XLA's thread
// pools): the tracer falls back to ordering host threads by the trace, says
// so in the trace, and every thread's calls are still recorded.
TEST_F(TracerThreadOrder, MoreThreadsThanAClockHoldsFallBackToTraceOrder) {
  const CUstream s = Stream(0x5000);
  void* x = Malloc(0x7f0000000000);
  void* y = Malloc(0x7f0000100000);
  constexpr int kThreads = STREAMCHECK_ORDERED_THREADS + 32;
  std::mutex m;
  std::condition_variable cv;
  int started = 0;
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&] {
      {  // all alive at once, as a pool's threads are
        std::unique_lock<std::mutex> lock(m);
        ++started;
        cv.notify_all();
        cv.wait(lock, [&] { return started == kThreads; });
      }
      fake_cuda::LaunchFakeKernel(tracer_.get(), x, y, s);
      Sync(s);
    });
  for (std::thread& t : threads) t.join();
  tracer_->Finish();
  std::string error;
  auto source = OpenTrace(trace_path_, &error);
  ASSERT_TRUE(source) << error;
  const std::vector<TraceRecord> records = testing::ReadAll(source.get()).records;
  int launches = 0, last_mode = -1;
  for (const TraceRecord& r : records) {
    launches += r.op == OpCode::kKernelLaunch;
    if (r.op == OpCode::kHostThreadOrder) last_mode = static_cast<int>(r.flags);
  }
  EXPECT_EQ(launches, kThreads);
  EXPECT_EQ(last_mode, 0);  // threads ordered by the trace from the overflow on
  Analyze(records);
}

}  // namespace
}  // namespace streamcheck::tracer
