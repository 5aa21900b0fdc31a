// Host synchronization: stream/event/device synchronize and successful queries
// order the host after device work; in a trace that does not say how its host
// threads synchronize (host_threads_test.cpp) the knowledge carries to other
// host threads.
#include <gtest/gtest.h>

#include "tests/runtime/finding_matchers.h"
#include "tests/runtime/trace_builder.h"

namespace streamcheck::testing {
namespace {

constexpr Handle kS1 = 0x10, kE = 0xe1, kDev = 0x1000, kHost = 0x9000;

// An async device-to-host copy into pinned memory, then `sync`, then a host read.
TraceBuilder CopyThen(void (*sync)(TraceBuilder&)) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).EventCreate(kE).Malloc(kDev, 256).Malloc(kHost, 256, MemoryKind::kPinnedHost);
  t.Copy(kS1, kHost, kDev, 256, CopyKind::kDeviceToHost, /*async=*/true).Record(kE, kS1);
  sync(t);
  t.HostRead(kHost, 256);
  return t;
}

TEST(HostSync, HostReadOfPendingCopyRaces) {
  auto fs = CopyThen([](TraceBuilder&) {}).Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "host-device-race");
  EXPECT_EQ(fs[0].kind, FindingKind::kReadAfterWrite);
  EXPECT_TRUE(fs[0].accesses[1].on_host);
  EXPECT_NE(fs[0].fix.find("cudaStreamSynchronize"), std::string::npos);
}

TEST(HostSync, EachHostSyncOrdersTheHost) {
  EXPECT_TRUE(CopyThen([](TraceBuilder& t) { t.StreamSync(kS1); }).Run().empty());
  EXPECT_TRUE(CopyThen([](TraceBuilder& t) { t.EventSync(kE); }).Run().empty());
  EXPECT_TRUE(CopyThen([](TraceBuilder& t) { t.DeviceSync(); }).Run().empty());
  EXPECT_TRUE(CopyThen([](TraceBuilder& t) { t.StreamQuery(kS1, 0); }).Run().empty());
  EXPECT_TRUE(CopyThen([](TraceBuilder& t) { t.EventQuery(kE, 0); }).Run().empty());
}

// A second wait for a stream the host waited for before takes what the
// stream did and learned since: its own new work, and work of another
// stream it waited for by an event (a shortcut that joined only the
// stream's own entry on a second wait would miss the second).
TEST(HostSync, ASecondWaitForAStreamTakesWhatItLearnedSince) {
  constexpr Handle kS2 = 0x20, kE2 = 0xe2, kDev2 = 0x2000;
  for (const bool device_sync : {false, true}) {
    auto wait = [&](TraceBuilder& t) { device_sync ? t.DeviceSync() : t.StreamSync(kS1); };
    TraceBuilder own;
    own.StreamCreate(kS1, kStreamNonBlocking).Malloc(kDev, 256).Malloc(kHost, 256, MemoryKind::kPinnedHost);
    own.Copy(kS1, kHost, kDev, 256, CopyKind::kDeviceToHost, /*async=*/true);
    wait(own);
    own.HostRead(kHost, 256).Copy(kS1, kHost, kDev, 256, CopyKind::kDeviceToHost, /*async=*/true);
    wait(own);
    own.HostRead(kHost, 256);
    EXPECT_TRUE(own.Run().empty()) << device_sync << " " << Summary(own.Run());

    // kS2 writes kDev2; kS1 waits for it after the host's first wait: the
    // host's second wait, for kS1 alone, orders it after kS2's write too.
    TraceBuilder learned;
    learned.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking).EventCreate(kE2);
    learned.Malloc(kDev2, 256).Malloc(kHost, 256, MemoryKind::kPinnedHost);
    learned.Copy(kS1, kHost, kDev2, 128, CopyKind::kDeviceToHost, /*async=*/true).StreamSync(kS1);
    learned.Copy(kS2, kHost, kDev2, 256, CopyKind::kDeviceToHost, /*async=*/true).Record(kE2, kS2).Wait(kS1, kE2);
    learned.StreamSync(kS1).HostRead(kHost, 256);
    EXPECT_TRUE(learned.Run().empty()) << Summary(learned.Run());
  }
}

TEST(HostSync, QueriesThatReturnNotReadyOrderNothing) {
  constexpr int kNotReady = 600;  // cudaErrorNotReady
  EXPECT_EQ(CopyThen([](TraceBuilder& t) { t.StreamQuery(kS1, kNotReady); }).Run().size(), 1u);
  EXPECT_EQ(CopyThen([](TraceBuilder& t) { t.EventQuery(kE, kNotReady); }).Run().size(), 1u);
}

TEST(HostSync, PollingLoopEndsOrdered) {
  auto fs = CopyThen([](TraceBuilder& t) {
    t.EventQuery(kE, 600).EventQuery(kE, 600).EventQuery(kE, 0);
  }).Run();
  EXPECT_TRUE(fs.empty()) << Summary(fs);
}

TEST(HostSync, SyncOfAnotherStreamDoesNotHelp) {
  auto fs = CopyThen([](TraceBuilder& t) { t.StreamCreate(0x20, kStreamNonBlocking).StreamSync(0x20); }).Run();
  EXPECT_EQ(fs.size(), 1u);
}

// A copy into pinned memory on stream `s`, then a synchronize of the legacy
// default stream through `handle` (0 or cudaStreamLegacy), then a host read.
std::vector<Finding> LegacySyncAfterCopy(uint32_t flags, Handle handle) {
  TraceBuilder t;
  t.StreamCreate(kS1, flags).Malloc(kDev, 256).Malloc(kHost, 256, MemoryKind::kPinnedHost);
  t.Copy(kS1, kHost, kDev, 256, CopyKind::kDeviceToHost, true).StreamSync(handle).HostRead(kHost, 256);
  return t.Run();
}

TEST(HostSync, SynchronizingTheLegacyStreamWaitsForBlockingStreamsOnly) {
  for (Handle legacy : {kLegacyStreamHandle, kCudaStreamLegacy}) {
    EXPECT_TRUE(LegacySyncAfterCopy(0, legacy).empty()) << Summary(LegacySyncAfterCopy(0, legacy));
    auto fs = LegacySyncAfterCopy(kStreamNonBlocking, legacy);
    ASSERT_EQ(fs.size(), 1u) << Summary(fs);
    EXPECT_EQ(fs[0].rule, "host-device-race");
  }
}

TEST(HostSync, KnowledgeCarriesToOtherHostThreads) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).Malloc(kDev, 256).Malloc(kHost, 256, MemoryKind::kPinnedHost);
  t.OnThread(1).Copy(kS1, kHost, kDev, 256, CopyKind::kDeviceToHost, true);
  t.OnThread(2).StreamSync(kS1);
  t.OnThread(1).HostRead(kHost, 256);
  EXPECT_TRUE(t.Run().empty());
}

TEST(HostSync, HostWriteWhileAsyncCopyStillReadsIt) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).Malloc(kDev, 256).Malloc(kHost, 256, MemoryKind::kPinnedHost);
  t.Copy(kS1, kDev, kHost, 256, CopyKind::kHostToDevice, true).HostWrite(kHost, 256);
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].rule, "host-device-race");
  EXPECT_EQ(fs[0].kind, FindingKind::kWriteAfterRead);
}

TEST(HostSync, HostWriteBeforeLaunchIsOrdered) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).Malloc(kHost, 256, MemoryKind::kPinnedHost);
  t.HostWrite(kHost, 256).Kernel(kS1, "reads_mapped_host", {R(kHost, 256)});
  EXPECT_TRUE(t.Run().empty());
}

}  // namespace
}  // namespace streamcheck::testing
