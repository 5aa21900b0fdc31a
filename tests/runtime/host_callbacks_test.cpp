// Host functions (cudaLaunchHostFunc, cudaStreamAddCallback) whose run the
// tracer observes: the driver's thread that runs one is after the work before
// it on its stream (kHostFuncBegin), and so is a thread it creates. The shape
// of NVIDIA's simpleCallback sample: copy in, kernel, copy out, callback; the
// callback starts a thread that reads the copy's destination.
#include <gtest/gtest.h>

#include "tests/runtime/finding_matchers.h"
#include "tests/runtime/trace_builder.h"

namespace streamcheck::testing {
namespace {

constexpr Handle kS1 = 0x10;
constexpr Address kDev = 0x1000, kPinned = 0x9000;
constexpr ThreadId kWorker = 1, kDriver = 7, kPostprocess = 8, kOther = 9;
constexpr uint32_t kCallback = 1;

// The worker queues the round trip and the callback; the driver's thread runs
// it (when `observed`) and creates the post-processing thread, which reads.
TraceBuilder RoundTripThenCallback(bool observed) {
  TraceBuilder t;
  t.PerThreadClocks();
  t.OnThread(kWorker).StreamCreate(kS1, kStreamNonBlocking).Malloc(kDev, 256);
  t.Malloc(kPinned, 256, MemoryKind::kPinnedHost);
  t.Copy(kS1, kDev, kPinned, 256, CopyKind::kHostToDevice, true);
  t.Kernel(kS1, "increment", {RW(kDev, 256)});
  t.Copy(kS1, kPinned, kDev, 256, CopyKind::kDeviceToHost, true);
  if (observed) {
    t.HostFunc(kS1, kCallback);
    // pthread_create in the callback: the driver's thread releases epoch 1.
    t.OnThread(kDriver).HostFuncBegin(kCallback).ThreadRelease(1).HostFuncEnd(kCallback);
  } else {
    t.HostFunc(kS1);  // today's trace: nothing says where or when it ran
    t.OnThread(kDriver).ThreadRelease(1);
  }
  t.OnThread(kPostprocess).ThreadAcquire(kDriver, 1).HostRead(kPinned, 4);
  return t;
}

TEST(HostCallbacks, AThreadTheCallbackCreatesIsAfterTheStreamsWork) {
  auto fs = RoundTripThenCallback(true).Run();
  EXPECT_TRUE(fs.empty()) << Summary(fs);
}

TEST(HostCallbacks, WithoutTheObservedRunTheReadIsARace) {
  // What streamcheck reported on simpleCallback before it followed the run.
  auto fs = RoundTripThenCallback(false).Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "host-device-race");
}

TEST(HostCallbacks, AThreadNotOrderedAfterTheCallbackStillRaces) {
  TraceBuilder t = RoundTripThenCallback(true);
  t.OnThread(kOther).HostRead(kPinned + 64, 4);
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "host-device-race");
}

TEST(HostCallbacks, WorkAfterTheHostFunctionOnItsStreamWaitsForIt) {
  // CUDA runs the stream's later work once the function has returned
  // (programming guide, "Host Functions (Callbacks)"), though the trace shows
  // the later copy before the run: no race on its stream, one on another.
  for (const bool same_stream : {true, false}) {
    TraceBuilder t;
    t.PerThreadClocks();
    t.OnThread(kWorker).StreamCreate(kS1, kStreamNonBlocking).StreamCreate(0x20, kStreamNonBlocking);
    t.Malloc(kDev, 256).Malloc(kPinned, 256, MemoryKind::kPinnedHost);
    t.HostFunc(kS1, kCallback).Copy(same_stream ? kS1 : 0x20, kPinned, kDev, 256, CopyKind::kDeviceToHost, true);
    t.OnThread(kDriver).HostFuncBegin(kCallback).HostRead(kPinned, 4).HostFuncEnd(kCallback);
    auto fs = t.Run();
    ASSERT_EQ(fs.size(), same_stream ? 0u : 1u) << Summary(fs);
    if (!same_stream) {
      EXPECT_EQ(fs[0].rule, "host-device-race");
    }
  }
}

TEST(HostCallbacks, ARunWhoseLaunchWasNotSeenOrdersNothing) {
  TraceBuilder t;
  t.PerThreadClocks();
  t.OnThread(kWorker).StreamCreate(kS1, kStreamNonBlocking).Malloc(kPinned, 256, MemoryKind::kPinnedHost);
  t.Malloc(kDev, 256).Copy(kS1, kPinned, kDev, 256, CopyKind::kDeviceToHost, true);
  t.OnThread(kDriver).HostFuncBegin(kCallback).HostRead(kPinned, 4).HostFuncEnd(kCallback);
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "host-device-race");
}

TEST(HostCallbacks, EachRunIsOnce) {
  // A second begin with the same id (a stale or repeated record) joins nothing.
  TraceBuilder t;
  t.PerThreadClocks();
  t.OnThread(kWorker).StreamCreate(kS1, kStreamNonBlocking).Malloc(kDev, 256);
  t.Malloc(kPinned, 256, MemoryKind::kPinnedHost);
  t.HostFunc(kS1, kCallback).OnThread(kDriver).HostFuncBegin(kCallback).HostFuncEnd(kCallback);
  t.OnThread(kWorker).Copy(kS1, kPinned, kDev, 256, CopyKind::kDeviceToHost, true);
  t.OnThread(kOther).HostFuncBegin(kCallback).HostRead(kPinned, 4);
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "host-device-race");
}

}  // namespace
}  // namespace streamcheck::testing
