// A device synchronization (cudaDeviceSynchronize, and cudaFree's implicit
// one) joins only the streams whose clocks changed since the thread's
// previous one (DeviceState's list of changed streams): what it skips must
// be in the thread's clock already, and what changed since must not be
// skipped. SyncObjects directly (how many clocks it joins), then whole
// traces, racy and fixed.
#include <gtest/gtest.h>

#include "runtime/sync_objects.h"
#include "tests/runtime/finding_matchers.h"
#include "tests/runtime/trace_builder.h"

namespace streamcheck::testing {
namespace {

constexpr Handle kS1 = 0x10, kS2 = 0x20, kS3 = 0x30, kDev = 0x1000, kHost = 0x9000;

// One operation on `s`, issued by `t`.
Epoch Work(SyncObjects& sync, StreamState& s, ThreadState& t) {
  sync.PrepareStreamOperation(s, t);
  return sync.TickStream(s);
}

TEST(DeviceSyncList, AThreadsFirstSyncJoinsEveryStreamWithWork) {
  LaneTable lanes;
  SyncObjects sync(&lanes);
  ThreadState& t1 = sync.Thread(1);
  StreamState& s1 = sync.CreateStream(kS1, 1, 0, kStreamNonBlocking);
  StreamState& s2 = sync.CreateStream(kS2, 1, 0, kStreamNonBlocking);
  sync.CreateStream(kS3, 1, 0, kStreamNonBlocking);  // no work: nothing to join
  const Epoch w1 = Work(sync, s1, t1), w2 = Work(sync, s2, t1);
  const uint64_t before = t1.joins;
  sync.JoinDeviceIntoThread(t1, 0);
  EXPECT_EQ(t1.joins - before, 2u);
  EXPECT_TRUE(t1.clock.Covers(w1));
  EXPECT_TRUE(t1.clock.Covers(w2));

  // Another thread, whose first device synchronization this is: it joins both too.
  ThreadState& t2 = sync.Thread(2);
  EXPECT_FALSE(t2.clock.Covers(w1));
  sync.JoinDeviceIntoThread(t2, 0);
  EXPECT_EQ(t2.joins, 2u);
  EXPECT_TRUE(t2.clock.Covers(w1));
  EXPECT_TRUE(t2.clock.Covers(w2));
}

TEST(DeviceSyncList, AStreamAlreadyJoinedIsNotJoinedAgain) {
  LaneTable lanes;
  SyncObjects sync(&lanes);
  ThreadState& t = sync.Thread(1);
  StreamState& s1 = sync.CreateStream(kS1, 1, 0, kStreamNonBlocking);
  StreamState& s2 = sync.CreateStream(kS2, 1, 0, kStreamNonBlocking);
  Work(sync, s1, t);
  Work(sync, s2, t);
  sync.JoinDeviceIntoThread(t, 0);
  uint64_t joins = t.joins;
  sync.JoinDeviceIntoThread(t, 0);  // nothing ran since
  EXPECT_EQ(t.joins, joins);

  // New work on s2 only: the next synchronization joins s2 alone, and covers it.
  const Epoch w = Work(sync, s2, t);
  EXPECT_FALSE(t.clock.Covers(w));
  sync.JoinDeviceIntoThread(t, 0);
  EXPECT_EQ(t.joins, joins + 1);
  EXPECT_TRUE(t.clock.Covers(w));

  // A stream that only learned (waited for an event) changed too.
  joins = t.joins;
  s1.Learn(s2.clock);
  sync.JoinDeviceIntoThread(t, 0);
  EXPECT_EQ(t.joins, joins + 1);
}

TEST(DeviceSyncList, WorkOfAStreamDestroyedSinceIsJoined) {
  LaneTable lanes;
  SyncObjects sync(&lanes);
  ThreadState& t = sync.Thread(1);
  StreamState& s1 = sync.CreateStream(kS1, 1, 0, kStreamNonBlocking);
  Work(sync, s1, t);
  sync.JoinDeviceIntoThread(t, 0);
  StreamState& s2 = sync.CreateStream(kS2, 1, 0, kStreamNonBlocking);
  const Epoch w = Work(sync, s2, t);
  sync.DestroyStream(kS2);
  sync.JoinDeviceIntoThread(t, 0);
  EXPECT_TRUE(t.clock.Covers(w));
  // The list still works with the stream gone from it.
  const Epoch w1 = Work(sync, s1, t);
  sync.JoinDeviceIntoThread(t, 0);
  EXPECT_TRUE(t.clock.Covers(w1));
}

TEST(DeviceSyncList, DevicesKeepTheirOwnLists) {
  LaneTable lanes;
  SyncObjects sync(&lanes);
  ThreadState& t = sync.Thread(1);
  StreamState& s1 = sync.CreateStream(kS1, 1, 0, kStreamNonBlocking);
  StreamState& s2 = sync.CreateStream(kS2, 1, 1, kStreamNonBlocking);
  const Epoch w1 = Work(sync, s1, t), w2 = Work(sync, s2, t);
  sync.JoinDeviceIntoThread(t, 1);
  EXPECT_FALSE(t.clock.Covers(w1));
  EXPECT_TRUE(t.clock.Covers(w2));
  sync.JoinDeviceIntoThread(t, 0);
  EXPECT_TRUE(t.clock.Covers(w1));
}

// s1 and s2 copy into pinned host memory; the host synchronizes the device
// between them (or not) and reads both.
TraceBuilder CopiesAroundDeviceSyncs(bool second_sync) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking);
  t.Malloc(kDev, 256).Malloc(kHost, 512, MemoryKind::kPinnedHost);
  t.Copy(kS1, kHost, kDev, 256, CopyKind::kDeviceToHost, /*async=*/true).DeviceSync().HostRead(kHost, 256);
  // Work on a stream that had none at the first synchronization.
  t.Copy(kS2, kHost + 256, kDev, 256, CopyKind::kDeviceToHost, /*async=*/true);
  if (second_sync) t.DeviceSync();
  t.HostRead(kHost + 256, 256);
  return t;
}

TEST(DeviceSync, WorkAddedSinceTheLastSyncIsOrderedByTheNext) {
  EXPECT_TRUE(CopiesAroundDeviceSyncs(true).Run().empty()) << Summary(CopiesAroundDeviceSyncs(true).Run());
  auto fs = CopiesAroundDeviceSyncs(false).Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "host-device-race");
}

// Thread 1 synchronizes the device after s1's copy; thread 2 (its own clock)
// then reads: only its own device synchronization orders it, and that is its
// first, which must take s1's work though thread 1 took it already.
TEST(DeviceSync, ANewThreadsFirstSyncJoinsEveryStreamWithWork) {
  for (const bool sync_on_thread_2 : {false, true}) {
    TraceBuilder t;
    t.PerThreadClocks();
    t.OnThread(1).StreamCreate(kS1, kStreamNonBlocking).Malloc(kDev, 256).Malloc(kHost, 256, MemoryKind::kPinnedHost);
    t.Copy(kS1, kHost, kDev, 256, CopyKind::kDeviceToHost, /*async=*/true).DeviceSync();
    t.OnThread(2);
    if (sync_on_thread_2) t.DeviceSync();
    t.HostRead(kHost, 256);
    auto fs = t.Run();
    EXPECT_EQ(fs.size(), sync_on_thread_2 ? 0u : 1u) << sync_on_thread_2 << " " << Summary(fs);
  }
}

// A stream destroyed after the thread's last synchronization: its work still
// completes, and the next device synchronization waits for it.
TEST(DeviceSync, AStreamDestroyedSinceTheLastSyncIsWaitedFor) {
  for (const bool second_sync : {false, true}) {
    TraceBuilder t;
    t.StreamCreate(kS1, kStreamNonBlocking).Malloc(kDev, 256).Malloc(kHost, 256, MemoryKind::kPinnedHost);
    t.Kernel(kS1, "k", {W(kDev, 256)}).DeviceSync();
    t.StreamCreate(kS2, kStreamNonBlocking).Copy(kS2, kHost, kDev, 256, CopyKind::kDeviceToHost, /*async=*/true);
    t.StreamDestroy(kS2);
    if (second_sync) t.DeviceSync();
    t.HostRead(kHost, 256);
    auto fs = t.Run();
    EXPECT_EQ(fs.size(), second_sync ? 0u : 1u) << second_sync << " " << Summary(fs);
  }
}

}  // namespace
}  // namespace streamcheck::testing
