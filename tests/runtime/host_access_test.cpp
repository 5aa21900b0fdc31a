// Host accesses as the tracer's guard pages observe them (tracer/host/): one
// access per fault, at the faulting address, judged against pending device
// work on pinned and managed memory. And the two questions the guards ask
// the engine: which device work a record queued, and whether a host thread
// is ordered after it.
#include <gtest/gtest.h>

#include "tests/runtime/finding_matchers.h"
#include "tests/runtime/trace_builder.h"

namespace streamcheck::testing {
namespace {

constexpr Handle kS1 = 0x10, kS2 = 0x20, kE = 0xe1, kDev = 0x1000, kManaged = 0x50000, kPinned = 0x90000;
constexpr uint64_t kBytes = 4096;

// A kernel writes managed memory on non-blocking s1, then `order` runs, then
// the host reads one byte of it (what a fault reports).
TraceBuilder KernelOnManagedThen(void (*order)(TraceBuilder&)) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking).EventCreate(kE);
  t.Malloc(kManaged, kBytes, MemoryKind::kManaged);
  t.Kernel(kS1, "fill", {W(kManaged, kBytes)}).Record(kE, kS1);
  order(t);
  t.HostRead(kManaged + 8, 1);
  return t;
}

TEST(HostAccess, ManagedReadAfterEventRecordWithoutSynchronizeRaces) {
  auto fs = KernelOnManagedThen([](TraceBuilder&) {}).Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "host-device-race");
  EXPECT_EQ(fs[0].kind, FindingKind::kReadAfterWrite);
  EXPECT_TRUE(fs[0].accesses[1].on_host);
  EXPECT_EQ(fs[0].accesses[1].address, kManaged + 8);
}

TEST(HostAccess, ManagedReadAfterEventSynchronizeIsOrdered) {
  EXPECT_TRUE(KernelOnManagedThen([](TraceBuilder& t) { t.EventSync(kE); }).Run().empty());
}

TEST(HostAccess, SynchronizingTheWrongStreamRaces) {
  EXPECT_EQ(KernelOnManagedThen([](TraceBuilder& t) { t.StreamSync(kS2); }).Run().size(), 1u);
  EXPECT_TRUE(KernelOnManagedThen([](TraceBuilder& t) { t.StreamSync(kS1); }).Run().empty());
}

TEST(HostAccess, BusyWaitOnAnotherStreamsQueryRaces) {
  constexpr int kNotReady = 600;
  EXPECT_EQ(KernelOnManagedThen([](TraceBuilder& t) { t.StreamQuery(kS2, kNotReady).StreamQuery(kS2, 0); }).Run().size(),
            1u);
  EXPECT_TRUE(KernelOnManagedThen([](TraceBuilder& t) { t.StreamQuery(kS1, kNotReady).StreamQuery(kS1, 0); })
                  .Run()
                  .empty());
}

// A fault reports the faulting byte: bytes of the page the copy does not
// write are no race, the bytes it writes are.
TEST(HostAccess, OnlyTheBytesThePendingCopyWritesRace) {
  auto run = [](Address read_at) {
    TraceBuilder t;
    t.StreamCreate(kS1, kStreamNonBlocking).Malloc(kDev, kBytes).Malloc(kPinned, kBytes, MemoryKind::kPinnedHost);
    t.Copy(kS1, kPinned + 1024, kDev, 512, CopyKind::kDeviceToHost, /*async=*/true);
    t.HostRead(read_at, 1);
    return t.Run();
  };
  EXPECT_TRUE(run(kPinned + 1023).empty());
  EXPECT_EQ(run(kPinned + 1024).size(), 1u);
  EXPECT_EQ(run(kPinned + 1535).size(), 1u);
  EXPECT_TRUE(run(kPinned + 1536).empty());
}

TEST(HostAccess, HostReadOfPinnedMemoryAnAsyncMemsetWrites) {
  auto run = [](bool synchronize) {
    TraceBuilder t;
    t.StreamCreate(kS1, kStreamNonBlocking).Malloc(kPinned, kBytes, MemoryKind::kPinnedHost);
    t.Memset(kS1, kPinned, kBytes, /*async=*/true);
    if (synchronize) t.StreamSync(kS1);
    t.HostRead(kPinned, 1);
    return t.Run();
  };
  EXPECT_EQ(run(false).size(), 1u);
  EXPECT_TRUE(run(true).empty());
}

// What the guards ask after each record: the device work it queued, and,
// after a synchronization, whether the thread is ordered after that work.
struct GuardView {
  std::vector<Engine::DeviceWork> work;  // per record
  std::vector<bool> ordered;             // per record: thread 1 ordered after the first valid work
};

GuardView Watch(const TraceBuilder& t) {
  CollectingSink sink;
  Engine engine(&sink);
  GuardView view;
  Engine::DeviceWork first;
  for (const TraceRecord& r : t.records()) {
    engine.Process(r);
    if (r.op == OpCode::kDefineString) continue;
    view.work.push_back(engine.LastDeviceWork());
    if (!first.valid()) first = engine.LastDeviceWork();
    view.ordered.push_back(engine.HostThreadOrderedAfter(1, first));
  }
  return view;
}

TEST(HostAccess, TheEngineSaysWhichDeviceWorkARecordQueued) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).Malloc(kDev, kBytes).Malloc(kPinned, kBytes, MemoryKind::kPinnedHost);
  t.Copy(kS1, kPinned, kDev, kBytes, CopyKind::kDeviceToHost, true)  // 3
      .Kernel(kS1, "fill", {W(kDev, kBytes)})                         // 4
      .StreamSync(kS1)                                                // 5
      .Copy(0, kPinned, kDev, kBytes, CopyKind::kDeviceToHost, false);  // 6: synchronous
  const GuardView v = Watch(t);
  ASSERT_EQ(v.work.size(), 7u);
  EXPECT_FALSE(v.work[0].valid());
  EXPECT_FALSE(v.work[2].valid());
  ASSERT_TRUE(v.work[3].valid());
  ASSERT_TRUE(v.work[4].valid());
  EXPECT_EQ(v.work[3].lane, v.work[4].lane);
  EXPECT_EQ(v.work[4].clock, v.work[3].clock + 1);
  EXPECT_FALSE(v.work[5].valid());
}

TEST(HostAccess, TheEngineSaysWhenAHostThreadIsOrderedAfterDeviceWork) {
  auto ordered_after = [](void (*order)(TraceBuilder&)) -> bool {
    TraceBuilder t;
    t.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking).EventCreate(kE);
    t.Malloc(kDev, kBytes).Malloc(kPinned, kBytes, MemoryKind::kPinnedHost);
    t.Copy(kS1, kPinned, kDev, kBytes, CopyKind::kDeviceToHost, true).Record(kE, kS1);
    order(t);
    return Watch(t).ordered.back();
  };
  EXPECT_FALSE(ordered_after([](TraceBuilder&) {}));
  EXPECT_FALSE(ordered_after([](TraceBuilder& t) { t.StreamSync(kS2); }));
  EXPECT_FALSE(ordered_after([](TraceBuilder& t) { t.EventQuery(kE, 600); }));
  EXPECT_TRUE(ordered_after([](TraceBuilder& t) { t.StreamSync(kS1); }));
  EXPECT_TRUE(ordered_after([](TraceBuilder& t) { t.EventSync(kE); }));
  EXPECT_TRUE(ordered_after([](TraceBuilder& t) { t.EventQuery(kE, 0); }));
  EXPECT_TRUE(ordered_after([](TraceBuilder& t) { t.DeviceSync(); }));
  // Work made ordered by a wait on another stream, then that stream's sync.
  EXPECT_TRUE(ordered_after([](TraceBuilder& t) { t.Wait(kS2, kE).Kernel(kS2, "k", {}).StreamSync(kS2); }));
}

// With host threads on clocks of their own (kHostThreadOrder), the guards'
// question is about the thread that made the record: another thread's
// synchronization orders it only once it acquired what that thread released.
// In trace order (a trace that does not say how its threads synchronize) a
// thread learns what every thread knew at its own next call.
TEST(HostAccess, WhetherAThreadIsOrderedIsAskedOfItsOwnClock) {
  auto watch = [](bool per_thread, void (*then)(TraceBuilder&)) {
    TraceBuilder t;
    if (per_thread) t.PerThreadClocks();
    t.OnThread(1).StreamCreate(kS1, kStreamNonBlocking).Malloc(kDev, kBytes).Malloc(kPinned, kBytes, MemoryKind::kPinnedHost);
    t.Copy(kS1, kPinned, kDev, kBytes, CopyKind::kDeviceToHost, true);
    t.OnThread(2).StreamSync(kS1);
    then(t);
    CollectingSink sink;
    Engine engine(&sink);
    Engine::DeviceWork copy;
    for (const TraceRecord& r : t.records()) {
      engine.Process(r);
      if (r.op == OpCode::kMemcpy) copy = engine.LastDeviceWork();
    }
    EXPECT_TRUE(copy.valid());
    EXPECT_TRUE(engine.HostThreadOrderedAfter(2, copy)) << "the thread that synchronized";
    return engine.HostThreadOrderedAfter(1, copy);
  };
  EXPECT_FALSE(watch(true, [](TraceBuilder&) {}));
  EXPECT_FALSE(watch(true, [](TraceBuilder& t) { t.OnThread(1).Malloc(kDev + kBytes, kBytes); }));
  EXPECT_TRUE(watch(true, [](TraceBuilder& t) { t.ThreadRelease(1).OnThread(1).ThreadAcquire(2, 1); }));
  EXPECT_TRUE(watch(false, [](TraceBuilder& t) { t.OnThread(1).Malloc(kDev + kBytes, kBytes); }));
}

// The engine's word on such a host access: thread 1 reads the copy's
// destination after only thread 2 synchronized (its page still guarded, the
// worker not yet past the synchronization): a possible race, since a
// handover streamcheck cannot see (atomics) may order the two threads; after
// an observed handover, none.
TEST(HostAccess, AnotherThreadsSynchronizeLeavesAPossibleRace) {
  auto run = [](bool handover) {
    TraceBuilder t;
    t.PerThreadClocks();
    t.OnThread(1).StreamCreate(kS1, kStreamNonBlocking).Malloc(kDev, kBytes).Malloc(kPinned, kBytes, MemoryKind::kPinnedHost);
    t.Copy(kS1, kPinned, kDev, kBytes, CopyKind::kDeviceToHost, true);
    t.OnThread(2).StreamSync(kS1);
    if (handover) t.ThreadRelease(1);
    t.OnThread(1);
    if (handover) t.ThreadAcquire(2, 1);
    t.HostRead(kPinned, 1);
    return t.Run();
  };
  auto fs = run(false);
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "host-device-race");
  EXPECT_EQ(fs[0].confidence, Confidence::kPossible);
  EXPECT_TRUE(run(true).empty());
}

// The host's own write (a guard page's fault) on thread 1, then thread 2
// enqueues a kernel that reads the bytes: only the threads' order is missing,
// and the finding says so (not that the host failed to wait for a stream).
TEST(HostAccess, AnotherThreadsKernelAfterTheHostsWriteNeedsAHandover) {
  auto run = [](bool handover) {
    TraceBuilder t;
    t.PerThreadClocks();
    t.OnThread(1).Malloc(kPinned, kBytes, MemoryKind::kPinnedHost).HostWrite(kPinned, 4);
    if (handover) t.ThreadRelease(1);
    t.OnThread(2).StreamCreate(kS1, kStreamNonBlocking);
    if (handover) t.ThreadAcquire(1, 1);
    t.Kernel(kS1, "consume", {R(kPinned, 4)});
    return t.Run();
  };
  auto fs = run(false);
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "host-device-race");
  EXPECT_EQ(fs[0].order_gap, "host-thread-not-ordered");
  EXPECT_EQ(fs[0].confidence, Confidence::kPossible);
  EXPECT_NE(fs[0].reason.find("host thread 1 made the earlier access"), std::string::npos) << fs[0].reason;
  EXPECT_EQ(fs[0].fix.rfind("hand the memory over from host thread 1 to host thread 2", 0), 0u) << fs[0].fix;
  EXPECT_EQ(fs[0].fix.find("cudaStreamSynchronize"), std::string::npos) << fs[0].fix;
  EXPECT_TRUE(run(true).empty());
}

TEST(HostAccess, CapturedWorkIsNoDeviceWork) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).Malloc(kDev, kBytes).Malloc(kPinned, kBytes, MemoryKind::kPinnedHost);
  t.BeginCapture(kS1).Copy(kS1, kPinned, kDev, kBytes, CopyKind::kDeviceToHost, true);
  const GuardView v = Watch(t);
  EXPECT_FALSE(v.work.back().valid());
}

}  // namespace
}  // namespace streamcheck::testing
