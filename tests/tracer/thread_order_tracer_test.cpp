// The tracer with the preloaded library (ctest runs this binary with
// LD_PRELOAD): a thread that synchronized hands the buffer to another thread,
// and the trace says how, so the engine orders the other thread's launch
// after the synchronize only when the handover is one it can see.
#include <dlfcn.h>
#include <gtest/gtest.h>
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

namespace streamcheck::tracer {
namespace {

using fake_cuda::Call;

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
  std::vector<TraceRecord> SyncThenHandOver(bool visible_handover) {
    const CUstream mine = Stream(0x5000), theirs = Stream(0x6000);
    void* x = Malloc(0x7f0000000000);
    void* y = Malloc(0x7f0000100000);
    void* z = Malloc(0x7f0000200000);
    std::mutex m;
    std::condition_variable cv;
    bool ready = false;
    std::atomic<bool> flag{false};
    std::thread other([&] {
      if (visible_handover) {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return ready; });
      } else {
        while (!flag.load()) std::this_thread::yield();
      }
      fake_cuda::LaunchFakeKernel(tracer_.get(), x, z, theirs);
    });
    fake_cuda::LaunchFakeKernel(tracer_.get(), y, x, mine);
    Sync(mine);
    {
      std::lock_guard<std::mutex> lock(m);
      ready = true;
    }
    cv.notify_one();
    flag = true;
    other.join();
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

 private:
  std::string trace_path_ = ::testing::TempDir() + "thread_order." + std::to_string(getpid()) + ".trace";
  std::unique_ptr<Tracer> tracer_;
};

TEST_F(TracerThreadOrder, AHandoverTheLibrarySeesOrdersTheOtherThread) {
  const std::vector<TraceRecord> records = SyncThenHandOver(true);
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
  const std::vector<Finding> findings = Analyze(SyncThenHandOver(false));
  ASSERT_EQ(findings.size(), 1u) << testing::Summary(findings);
  EXPECT_EQ(findings[0].rule, "cross-stream-race");
  EXPECT_EQ(findings[0].confidence, Confidence::kPossible);
  EXPECT_NE(findings[0].reason.find("host thread"), std::string::npos) << findings[0].reason;
}

}  // namespace
}  // namespace streamcheck::tracer
