// Host threads have their own clocks (kHostThreadOrder): a synchronization
// orders only the thread that made it, and threads learn from each other only
// through what they release and acquire (kThreadRelease, kThreadAcquire).
#include <gtest/gtest.h>

#include "tests/runtime/finding_matchers.h"
#include "tests/runtime/trace_builder.h"

namespace streamcheck::testing {
namespace {

constexpr Handle kS1 = 0x10, kS2 = 0x20, kS3 = 0x30;
constexpr Address kX = 0x1000, kY = 0x2000, kPinned = 0x9000;

// Thread 1 fills x on its stream and synchronizes it; thread 2 later reads x
// on a stream of its own. `handover` runs on thread 2 before its read.
TraceBuilder SyncThenOtherThreadReads(bool per_thread, void (*handover)(TraceBuilder&)) {
  TraceBuilder t;
  if (per_thread) t.PerThreadClocks();
  t.OnThread(1).StreamCreate(kS1, kStreamNonBlocking).Malloc(kX, 256);
  t.Kernel(kS1, "fill", {W(kX, 256)}).StreamSync(kS1);
  t.OnThread(2).StreamCreate(kS2, kStreamNonBlocking);
  handover(t);
  t.Kernel(kS2, "read", {R(kX, 256)});
  return t;
}

TEST(HostThreads, ASynchronizeOrdersOnlyTheThreadThatMadeIt) {
  auto fs = SyncThenOtherThreadReads(true, [](TraceBuilder&) {}).Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "cross-stream-race");
  // Only the order of the two host threads is missing, and streamcheck cannot
  // see every handover (atomics): the finding says so.
  EXPECT_EQ(fs[0].confidence, Confidence::kPossible);
  EXPECT_NE(fs[0].reason.find("host thread 1 knew"), std::string::npos) << fs[0].reason;
  EXPECT_NE(fs[0].reason.find("atomics"), std::string::npos) << fs[0].reason;
  EXPECT_NE(fs[0].fix.find("condition variable"), std::string::npos) << fs[0].fix;
  EXPECT_EQ(fs[0].uncertainty, std::vector<std::string>{"unobserved-handover"});  // for the reports' words
  EXPECT_EQ(fs[0].aware_thread, 1u);
}

TEST(HostThreads, AHandoverAfterTheSynchronizeOrdersTheOtherThread) {
  // Thread 1 released something in its first epoch (after its sync), thread 2 acquired it.
  auto fs = SyncThenOtherThreadReads(true, [](TraceBuilder& t) { t.ThreadAcquire(1, 1); }).Run();
  EXPECT_TRUE(fs.empty()) << Summary(fs);
}

TEST(HostThreads, WithoutPerThreadClocksKnowledgePassesInTraceOrder) {
  // Traces that do not say how their threads synchronize (older tracers,
  // hand-written ones) keep the conservative reading.
  auto fs = SyncThenOtherThreadReads(false, [](TraceBuilder&) {}).Run();
  EXPECT_TRUE(fs.empty()) << Summary(fs);
}

TEST(HostThreads, WhenNoThreadKnewTheFindingIsCertain) {
  TraceBuilder t;
  t.PerThreadClocks();
  t.OnThread(1).StreamCreate(kS1, kStreamNonBlocking).Malloc(kX, 256).Kernel(kS1, "fill", {W(kX, 256)});
  t.OnThread(2).StreamCreate(kS2, kStreamNonBlocking).ThreadAcquire(1, 1).Kernel(kS2, "read", {R(kX, 256)});
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].confidence, Confidence::kCertain);
  EXPECT_EQ(fs[0].reason.find("host thread"), std::string::npos) << fs[0].reason;
  EXPECT_TRUE(fs[0].uncertainty.empty());
  EXPECT_EQ(fs[0].aware_thread, 0u);
}

// Thread 1 synchronizes s1, releases, ends that epoch, then synchronizes s2;
// thread 2 acquires `epoch` of thread 1 and reads what s1 and s2 wrote.
std::vector<Finding> AcquireOfEpoch(uint32_t epoch) {
  TraceBuilder t;
  t.PerThreadClocks();
  t.OnThread(1).StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking).Malloc(kX, 256).Malloc(kY, 256);
  t.Kernel(kS1, "fill_x", {W(kX, 256)}).Kernel(kS2, "fill_y", {W(kY, 256)});
  t.StreamSync(kS1).ThreadRelease(1).StreamSync(kS2);
  t.OnThread(2).StreamCreate(kS3, kStreamNonBlocking).ThreadAcquire(1, epoch);
  t.Kernel(kS3, "read_x", {R(kX, 256)}).Kernel(kS3, "read_y", {R(kY, 256)});
  return t.Run();
}

TEST(HostThreads, AnAcquireLearnsWhatTheThreadKnewWhenItReleasedNotLater) {
  auto fs = AcquireOfEpoch(1);
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].accesses[0].op, "fill_y");
  EXPECT_EQ(fs[0].confidence, Confidence::kPossible);
  EXPECT_TRUE(AcquireOfEpoch(2).empty()) << Summary(AcquireOfEpoch(2));
}

TEST(HostThreads, KnowledgePassesOnThroughAThirdThread) {
  TraceBuilder t;
  t.PerThreadClocks();
  t.OnThread(1).StreamCreate(kS1, kStreamNonBlocking).Malloc(kX, 256).Kernel(kS1, "fill", {W(kX, 256)}).StreamSync(kS1);
  t.OnThread(3).ThreadAcquire(1, 1);  // thread 3 took thread 1's lock ...
  t.OnThread(2).StreamCreate(kS2, kStreamNonBlocking).ThreadAcquire(3, 1);  // ... thread 2 thread 3's
  t.Kernel(kS2, "read", {R(kX, 256)});
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());
}

TEST(HostThreads, AHostAccessOfAnotherThreadNeedsAHandover) {
  auto racy = [] {
    TraceBuilder t;
    t.PerThreadClocks().OnThread(1).Malloc(kPinned, 256, MemoryKind::kPinnedHost).HostWrite(kPinned, 256);
    t.OnThread(2).StreamCreate(kS2, kStreamNonBlocking);
    return t;
  };
  auto unordered = racy();
  unordered.Kernel(kS2, "read", {R(kPinned, 256)});
  auto fs = unordered.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "host-device-race");
  EXPECT_EQ(fs[0].confidence, Confidence::kPossible);
  auto ordered = racy();
  ordered.ThreadAcquire(1, 1).Kernel(kS2, "read", {R(kPinned, 256)});
  EXPECT_TRUE(ordered.Run().empty()) << Summary(ordered.Run());
}

TEST(HostThreads, AnAcquireFromAThreadThisEngineNeverSawOrdersNothing) {
  // A forked child: its threads' stamps may name the parent's other threads.
  auto fs = SyncThenOtherThreadReads(true, [](TraceBuilder& t) { t.ThreadAcquire(7, 3); }).Run();
  EXPECT_EQ(fs.size(), 1u) << Summary(fs);
}

TEST(HostThreads, BackToTraceOrderWhenTheTracerCannotFollowTheThreads) {
  auto fs = SyncThenOtherThreadReads(true, [](TraceBuilder& t) { t.PerThreadClocks(false); }).Run();
  EXPECT_TRUE(fs.empty()) << Summary(fs);
}

TEST(ThreadEpochs, AnEndedEpochKeepsTheClockOfItsEnd) {
  ThreadEpochs epochs;
  VectorClock clock;
  clock.Set(0, 5);  // the thread's own lane
  clock.Set(1, 2);
  epochs.End(1, clock, 0, /*joins=*/1);
  clock.Set(0, 6);  // its own entry moved: the next epoch shares the rest
  epochs.End(2, clock, 0, 1);
  clock.Set(1, 9);  // it synchronized: a new copy
  epochs.End(3, clock, 0, 2);
  VectorClock current = clock;
  current.Set(0, 7);
  VectorClock into;
  EXPECT_EQ(epochs.JoinEpoch(1, current, 0, &into), ThreadEpochs::Found::kEnded);
  EXPECT_EQ(into.Get(0), 5u);
  EXPECT_EQ(into.Get(1), 2u);
  VectorClock second;
  EXPECT_EQ(epochs.JoinEpoch(2, current, 0, &second), ThreadEpochs::Found::kEnded);
  EXPECT_EQ(second.Get(0), 6u);
  EXPECT_EQ(second.Get(1), 2u);
  VectorClock now;
  EXPECT_EQ(epochs.JoinEpoch(4, current, 0, &now), ThreadEpochs::Found::kCurrent);
  EXPECT_EQ(now, current);
}

TEST(ThreadEpochs, AnEpochOlderThanWhatIsKeptOrdersAfterTheOldestKept) {
  ThreadEpochs epochs;
  VectorClock clock;
  for (uint32_t e = 1; e <= ThreadEpochs::kKept + 10; ++e) {
    clock.Set(0, e);
    epochs.End(e, clock, 0, 0);
  }
  EXPECT_EQ(epochs.kept(), ThreadEpochs::kKept);
  VectorClock into;
  EXPECT_EQ(epochs.JoinEpoch(3, clock, 0, &into), ThreadEpochs::Found::kOlderThanKept);
  EXPECT_EQ(into.Get(0), 11u);  // later than epoch 3's: more order, never less
}

TEST(ThreadEpochs, RecordsThatChangeAThreadsClockAreKnown) {
  TraceRecord r;
  r.op = OpCode::kKernelLaunch;
  EXPECT_FALSE(ChangesThreadClock(r));
  r.op = OpCode::kStreamSynchronize;
  EXPECT_TRUE(ChangesThreadClock(r));
  r.op = OpCode::kStreamQuery;
  r.result = 600;  // not ready: learns nothing
  EXPECT_FALSE(ChangesThreadClock(r));
  r.op = OpCode::kMemcpy;
  r.is_async = true;
  r.copy_kind = CopyKind::kDeviceToHost;
  EXPECT_FALSE(ChangesThreadClock(r));
  r.copy_kind = CopyKind::kDefault;  // may turn out host to host, done by the host
  EXPECT_TRUE(ChangesThreadClock(r));
}

}  // namespace
}  // namespace streamcheck::testing
