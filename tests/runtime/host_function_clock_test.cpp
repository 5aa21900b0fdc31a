// Each host function's run has a clock of its own (runtime/engine_host_funcs.cpp),
// not the driver thread's that runs them all: two host functions of two
// streams touching the same host memory race unless something orders their
// streams (CUDA programming guide, "Host Functions (Callbacks)"). Racy and
// fixed for each case, the way the driver really runs them: one thread.
#include <gtest/gtest.h>

#include "tests/runtime/finding_matchers.h"
#include "tests/runtime/trace_builder.h"

namespace streamcheck::testing {
namespace {

constexpr Handle kS1 = 0x10, kS2 = 0x20, kE = 0xe0, kGraph = 0x600, kExec = 0x700;
constexpr Handle kNodeA = 0x601, kNodeB = 0x602;
constexpr Address kDev = 0x1000, kPinned = 0x9000;
constexpr ThreadId kMain = 1, kDriver = 7, kReader = 8;

TraceBuilder TwoStreams() {
  TraceBuilder t;
  t.PerThreadClocks();
  t.OnThread(kMain).StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking);
  t.EventCreate(kE).Malloc(kDev, 256).Malloc(kPinned, 256, MemoryKind::kPinnedHost);
  return t;
}

// Callback 1 on s1 and callback 2 on s2 both write the pinned buffer; the
// driver thread runs 1 then 2, which used to order them.
TraceBuilder TwoCallbacksWrite(bool ordered) {
  TraceBuilder t = TwoStreams();
  t.OnThread(kMain).HostFunc(kS1, 1);
  if (ordered) t.Record(kE, kS1).Wait(kS2, kE);
  t.HostFunc(kS2, 2);
  t.OnThread(kDriver).HostFuncBegin(1).HostWrite(kPinned, 64).HostFuncEnd(1);
  t.HostFuncBegin(2).HostWrite(kPinned, 64).HostFuncEnd(2);
  return t;
}

TEST(HostFunctionClock, TwoCallbacksOfTwoStreamsRace) {
  auto fs = TwoCallbacksWrite(false).Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "host-device-race");
  EXPECT_EQ(fs[0].kind, FindingKind::kWriteAfterWrite);
  EXPECT_EQ(fs[0].order_gap, "host-functions-not-ordered");
  EXPECT_NE(fs[0].reason.find("Host Functions (Callbacks)"), std::string::npos) << fs[0].reason;
  EXPECT_NE(fs[0].fix.find("cudaStreamWaitEvent"), std::string::npos) << fs[0].fix;
  EXPECT_TRUE(fs[0].accesses[0].on_host);
  EXPECT_EQ(fs[0].accesses[0].stream_handle, kS1);
  EXPECT_EQ(fs[0].accesses[1].stream_handle, kS2);
}

// As the guard pages see it live (tests/tracer/host_guards_test.cpp): a copy
// on s1 writes the buffer, callback 2 (s2, nothing before it) runs first and
// races the copy, then callback 1 (after the copy) races callback 2.
TEST(HostFunctionClock, TheSecondCallbackRacesBothTheCopyAndTheFirst) {
  TraceBuilder t = TwoStreams();
  t.OnThread(kMain).Copy(kS1, kPinned, kDev, 64, CopyKind::kDeviceToHost, true).HostFunc(kS1, 1).HostFunc(kS2, 2);
  t.OnThread(kDriver).HostFuncBegin(2).HostWrite(kPinned, 4).HostFuncEnd(2);
  t.HostFuncBegin(1).HostWrite(kPinned, 4).HostFuncEnd(1);
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 2u) << Summary(fs);
  EXPECT_EQ(fs[1].order_gap, "host-functions-not-ordered");
}

TEST(HostFunctionClock, AnEventOrdersTheCallbacks) {
  auto fs = TwoCallbacksWrite(true).Run();
  EXPECT_TRUE(fs.empty()) << Summary(fs);
}

TEST(HostFunctionClock, CallbacksOfOneStreamRunInOrder) {
  TraceBuilder t = TwoStreams();
  t.OnThread(kMain).HostFunc(kS1, 1).HostFunc(kS1, 2);
  t.OnThread(kDriver).HostFuncBegin(1).HostWrite(kPinned, 64).HostFuncEnd(1);
  t.HostFuncBegin(2).HostWrite(kPinned, 64).HostFuncEnd(2);
  auto fs = t.Run();
  EXPECT_TRUE(fs.empty()) << Summary(fs);
}

// A callback on s1 reads what a kernel on s2 writes.
TraceBuilder CallbackReadsKernelOutput(bool ordered) {
  TraceBuilder t = TwoStreams();
  t.OnThread(kMain).Kernel(kS2, "produce", {W(kPinned, 256)});
  if (ordered) t.Record(kE, kS2).Wait(kS1, kE);
  t.HostFunc(kS1, 1);
  t.OnThread(kDriver).HostFuncBegin(1).HostRead(kPinned, 64).HostFuncEnd(1);
  return t;
}

TEST(HostFunctionClock, ACallbackReadingAnotherStreamsKernelOutputRaces) {
  auto fs = CallbackReadsKernelOutput(false).Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "host-device-race");
  EXPECT_EQ(fs[0].kind, FindingKind::kReadAfterWrite);
  EXPECT_EQ(fs[0].order_gap, "no-event-wait");
}

TEST(HostFunctionClock, AWaitBeforeTheLaunchOrdersTheCallbackAfterTheKernel) {
  auto fs = CallbackReadsKernelOutput(true).Run();
  EXPECT_TRUE(fs.empty()) << Summary(fs);
}

TEST(HostFunctionClock, TheStreamsLaterWorkWaitsForTheCallback) {
  // The callback fills the pinned buffer; a copy after it on its stream reads it.
  TraceBuilder t = TwoStreams();
  t.OnThread(kMain).HostFunc(kS1, 1).Copy(kS1, kDev, kPinned, 256, CopyKind::kHostToDevice, true);
  t.Kernel(kS2, "other", {R(kPinned, 256)});  // but s2 is not after it
  t.OnThread(kDriver).HostFuncBegin(1).HostWrite(kPinned, 256).HostFuncEnd(1);
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "host-device-race");
  EXPECT_EQ(fs[0].accesses[1].stream_handle, kS1);  // the callback, later in the trace, against s2's kernel
}

TEST(HostFunctionClock, AHostThreadThatSynchronizedTheStreamIsAfterTheCallback) {
  for (const bool synced : {false, true}) {
    TraceBuilder t = TwoStreams();
    t.OnThread(kMain).HostFunc(kS1, 1);
    t.OnThread(kDriver).HostFuncBegin(1).HostWrite(kPinned, 64).HostFuncEnd(1);
    if (synced) t.OnThread(kMain).StreamSync(kS1);
    t.OnThread(kMain).HostRead(kPinned, 64);
    auto fs = t.Run();
    EXPECT_EQ(fs.size(), synced ? 0u : 1u) << Summary(fs);
  }
}

// A lock the second callback releases passes on its own clock, not the first
// callback's: the reader is after callback 2 only.
TEST(HostFunctionClock, ALockReleasedInACallbackCarriesThatCallbacksClockOnly) {
  TraceBuilder t = TwoStreams();
  t.OnThread(kMain).HostFunc(kS1, 1).HostFunc(kS2, 2);
  t.OnThread(kDriver).HostFuncBegin(1).HostWrite(kPinned, 64).HostFuncEnd(1);
  t.HostFuncBegin(2).HostWrite(kPinned + 128, 64).ThreadRelease(1).HostFuncEnd(2);
  t.OnThread(kReader).ThreadAcquire(kDriver, 1).HostRead(kPinned + 128, 64).HostRead(kPinned, 64);
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].accesses[1].address, kPinned);
}

TEST(HostFunctionClock, AReleaseAfterTheCallbackEndedPassesItOn) {
  // Traces recorded before the tracer ended an epoch at kHostFuncEnd end one
  // released inside a callback only after it: the driver thread's own clock
  // then holds the callback's, so what it passed on stays ordered.
  TraceBuilder t = TwoStreams();
  t.OnThread(kMain).HostFunc(kS1, 1);
  t.OnThread(kDriver).HostFuncBegin(1).HostWrite(kPinned, 64).HostFuncEnd(1).ThreadRelease(1);
  t.OnThread(kReader).ThreadAcquire(kDriver, 1).HostRead(kPinned, 64);
  auto fs = t.Run();
  EXPECT_TRUE(fs.empty()) << Summary(fs);
}

TEST(HostFunctionClock, ACudaCallInsideACallbackIsCounted) {
  TraceBuilder t = TwoStreams();
  t.OnThread(kMain).HostFunc(kS1, 1);
  t.OnThread(kDriver).HostFuncBegin(1).Kernel(kS2, "forbidden", {}).HostFuncEnd(1);
  EngineStats stats;
  t.Run(&stats);
  EXPECT_EQ(stats.anomalies.count(
                "host functions: a CUDA call made inside a host function (the CUDA programming guide forbids it)"),
            1u);
}

// A graph whose host node B reads what its kernel node A writes; racy
// without the edge A -> B. Launched twice: each launch runs B once.
TraceBuilder GraphHostNodeReads(bool edge) {
  TraceBuilder t = TwoStreams();
  t.OnThread(kMain).GraphCreate(kGraph).GraphKernelNode(kGraph, kNodeA, {}, "fill", {W(kPinned, 256)});
  t.GraphHostNode(kGraph, kNodeB, edge ? std::vector<Handle>{kNodeA} : std::vector<Handle>{}, 5);
  t.Instantiate(kExec, kGraph).Launch(kExec, kS1).Launch(kExec, kS1);
  t.OnThread(kDriver).HostFuncBegin(5).HostRead(kPinned, 64).HostFuncEnd(5);
  t.HostFuncBegin(5).HostRead(kPinned, 64).HostFuncEnd(5);
  t.OnThread(kMain).StreamSync(kS1).HostWrite(kPinned, 256);
  return t;
}

TEST(HostFunctionClock, AGraphHostNodeWithoutAnEdgeRacesWithItsKernelNode) {
  auto fs = GraphHostNodeReads(false).Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].kind, FindingKind::kReadAfterWrite);
  EXPECT_EQ(fs[0].order_gap, "graph-no-dependency");
}

TEST(HostFunctionClock, AGraphHostNodeAfterItsKernelNodeIsOrdered) {
  EngineStats stats;
  auto fs = GraphHostNodeReads(true).Run(&stats);
  EXPECT_TRUE(fs.empty()) << Summary(fs);
  EXPECT_TRUE(stats.anomalies.empty());
}

TEST(HostFunctionClock, ACapturedHostFunctionRunsAtEachLaunch) {
  for (const bool waited : {false, true}) {
    TraceBuilder t = TwoStreams();
    t.OnThread(kMain).BeginCapture(kS1).HostFunc(kS1, 9).EndCapture(kS1, kGraph).Instantiate(kExec, kGraph);
    t.Kernel(kS2, "produce", {W(kPinned, 256)});
    if (waited) t.Record(kE, kS2).Wait(kS1, kE);
    t.Launch(kExec, kS1);
    t.OnThread(kDriver).HostFuncBegin(9).HostRead(kPinned, 64).HostFuncEnd(9);
    auto fs = t.Run();
    EXPECT_EQ(fs.size(), waited ? 0u : 1u) << Summary(fs);
  }
}

}  // namespace
}  // namespace streamcheck::testing
