// The CUDA runtime's documented synchronization behavior of copies and memsets.
#include <gtest/gtest.h>

#include "tests/runtime/finding_matchers.h"
#include "tests/runtime/trace_builder.h"

namespace streamcheck::testing {
namespace {

constexpr Handle kS1 = 0x10, kS2 = 0x30, kLegacy = kLegacyStreamHandle;
constexpr Address kDev = 0x1000, kDev2 = 0x5000, kPinned = 0x9000, kPageable = 0xd000;

TraceBuilder Given() {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).Malloc(kDev, 256).Malloc(kDev2, 256).Malloc(kPinned, 256, MemoryKind::kPinnedHost);
  return t;
}

TEST(Transfers, SyncDeviceToHostReturnsAfterTheCopy) {
  auto t = Given();
  t.Kernel(kLegacy, "fill", {W(kDev, 256)}).Copy(kLegacy, kPageable, kDev, 256, CopyKind::kDeviceToHost, false);
  t.HostRead(kPageable, 256).HostWrite(kPageable, 256);
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());
}

TEST(Transfers, SyncPageableHostToDeviceReleasesTheSourceButNotTheDestination) {
  // The host may reuse the source at once (staged) ...
  auto src = Given();
  src.Copy(kLegacy, kDev, kPageable, 256, CopyKind::kHostToDevice, false).HostWrite(kPageable, 256);
  EXPECT_TRUE(src.Run().empty()) << Summary(src.Run());
  // ... but by the letter the device write may still be in flight for a
  // non-blocking stream: a warning that cites the documentation.
  auto dst = Given();
  dst.Copy(kLegacy, kDev, kPageable, 256, CopyKind::kHostToDevice, false).Kernel(kS1, "reader", {R(kDev, 256)});
  const auto fs = dst.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "cross-stream-race");
  EXPECT_TRUE(fs[0].at_most_warning);
  EXPECT_EQ(SeverityOf(fs[0]), "warning");
  EXPECT_EQ(fs[0].confidence, Confidence::kPossible);
  EXPECT_NE(fs[0].reason.find("the DMA to final destination may not have completed"), std::string::npos) << fs[0].reason;
  EXPECT_EQ(fs[0].uncertainty, std::vector<std::string>{"staged-copy"});  // for the reports' words
  // Ordered after the copy, the stream reads the data: no finding.
  auto fixed = Given();
  fixed.Copy(kLegacy, kDev, kPageable, 256, CopyKind::kHostToDevice, false).DeviceSync();
  fixed.Kernel(kS1, "reader", {R(kDev, 256)});
  EXPECT_TRUE(fixed.Run().empty()) << Summary(fixed.Run());
}

TEST(Transfers, SyncPageableHostToDeviceOverDataANonBlockingStreamStillReadsIsAnError) {
  // The stream sync before the copy covers the legacy stream's work, not a
  // non-blocking stream's: the copy may overwrite what its kernel still
  // reads. That hazard is real, not one of the letter only.
  auto t = Given();
  t.Kernel(kS1, "reader", {R(kDev, 256)}).Copy(kLegacy, kDev, kPageable, 256, CopyKind::kHostToDevice, false);
  const auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_FALSE(fs[0].at_most_warning);
  EXPECT_EQ(SeverityOf(fs[0]), "error");
}

TEST(Transfers, SyncPageableHostToDeviceFirstSynchronizesTheStream) {
  // "a stream sync is performed before the copy is initiated": the host may
  // then touch what earlier legacy work produced in pinned memory.
  auto t = Given();
  t.Copy(kLegacy, kPinned, kDev, 256, CopyKind::kDeviceToHost, true);
  t.Copy(kLegacy, kDev2, kPageable, 256, CopyKind::kHostToDevice, false);
  t.HostRead(kPinned, 256);
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());
}

TEST(Transfers, SyncPinnedHostToDeviceIsSynchronous) {
  auto t = Given();
  t.Copy(kLegacy, kDev, kPinned, 256, CopyKind::kHostToDevice, false);
  t.Kernel(kS1, "reader", {R(kDev, 256)});
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());
}

TEST(Transfers, SyncDeviceToDeviceDoesNotWaitForTheHost) {
  auto t = Given();
  t.Copy(kLegacy, kDev2, kDev, 256, CopyKind::kDeviceToDevice, false).Kernel(kS1, "reader", {R(kDev2, 256)});
  EXPECT_EQ(t.Run().size(), 1u);
}

TEST(Transfers, CopyKindDefaultIsResolvedFromThePointers) {
  auto t = Given();
  t.Copy(kLegacy, kPinned, kDev, 256, CopyKind::kDefault, false).HostRead(kPinned, 256);  // D2H: synchronous
  EXPECT_TRUE(t.Run().empty());
}

TEST(Transfers, AsyncCopyToPinnedMemoryNeedsASync) {
  auto t = Given();
  t.Copy(kS1, kPinned, kDev, 256, CopyKind::kDeviceToHost, true).HostRead(kPinned, 256);
  EXPECT_EQ(CountRule(t.Run(), "host-device-race"), 1u);
}

TEST(Transfers, AsyncCopyWithPageableMemoryIsFlaggedAndTreatedAsAsync) {
  auto t = Given();
  t.Copy(kS1, kPageable, kDev, 256, CopyKind::kDeviceToHost, true).HostRead(kPageable, 256);
  auto fs = t.Run();
  EXPECT_EQ(CountRule(fs, "pageable-async-copy"), 1u) << Summary(fs);
  EXPECT_EQ(CountRule(fs, "host-device-race"), 1u) << Summary(fs);
}

TEST(Transfers, PageableCopyFollowedByItsStreamsSynchronizationIsNotFlagged) {
  auto t = Given();  // PyTorch's blocking Tensor.to("cpu"): cudaMemcpyAsync, then cudaStreamSynchronize
  t.Copy(kS1, kPageable, kDev, 256, CopyKind::kDeviceToHost, true).StreamSync(kS1).HostRead(kPageable, 256);
  t.Copy(kS1, kPageable, kDev, 256, CopyKind::kDeviceToHost, true).DeviceSync().HostRead(kPageable, 256);
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());

  // The end of the thread's epoch, which the tracer writes just before a
  // synchronize (host threads have clocks of their own), is no call between.
  auto released = Given();
  released.Copy(kS1, kPageable, kDev, 256, CopyKind::kDeviceToHost, true).ThreadRelease(1).StreamSync(kS1);
  EXPECT_TRUE(released.Run().empty()) << Summary(released.Run());

  // The stream's own bookkeeping before its synchronization (cuda-samples'
  // streamOrderedAllocation frees the source in stream order first).
  auto bookkeeping = Given();
  bookkeeping.EventCreate(0xe1).MallocAsync(0x20000, 256, kS1);
  bookkeeping.Copy(kS1, kPageable, 0x20000, 256, CopyKind::kDeviceToHost, true).FreeAsync(0x20000, kS1);
  bookkeeping.Record(0xe1, kS1).StreamSync(kS1).HostRead(kPageable, 256);
  EXPECT_TRUE(bookkeeping.Run().empty()) << Summary(bookkeeping.Run());
  auto launch = Given();  // more work on the stream first: the program went on
  launch.Copy(kS1, kPageable, kDev, 256, CopyKind::kDeviceToHost, true).Kernel(kS1, "k", {}).StreamSync(kS1);
  EXPECT_EQ(CountRule(launch.Run(), "pageable-async-copy"), 1u);
  auto elsewhere = Given();  // a free on another stream is not the copy's stream's bookkeeping
  elsewhere.StreamCreate(kS2, kStreamNonBlocking).MallocAsync(0x20000, 256, kS2);
  elsewhere.Copy(kS1, kPageable, kDev, 256, CopyKind::kDeviceToHost, true).FreeAsync(0x20000, kS2).StreamSync(kS1);
  EXPECT_EQ(CountRule(elsewhere.Run(), "pageable-async-copy"), 1u);

  auto other = Given();  // synchronizing another stream does not make the copy synchronous
  other.Copy(kS1, kPageable, kDev, 256, CopyKind::kDeviceToHost, true).StreamSync(kLegacy);
  EXPECT_EQ(CountRule(other.Run(), "pageable-async-copy"), 1u);

  auto last = Given();  // the trace ends before anything settles it
  last.Copy(kS1, kPageable, kDev, 256, CopyKind::kDeviceToHost, true);
  EXPECT_EQ(CountRule(last.Run(), "pageable-async-copy"), 1u);

  auto two_threads = Given();  // another thread's call settles nothing
  two_threads.Copy(kS1, kPageable, kDev, 256, CopyKind::kDeviceToHost, true);
  two_threads.OnThread(2).Kernel(kS1, "k", {}).OnThread(1).StreamSync(kS1);
  EXPECT_TRUE(two_threads.Run().empty()) << Summary(two_threads.Run());
}

TEST(Transfers, AsyncCopyFromPageableMemoryHasReadItWhenTheCallReturns) {
  // As observed at every size (tests/gpu/scenarios/pageable_async_copy.cu):
  // the host may overwrite or free the source at once; no warning.
  auto t = Given();
  t.Kernel(kS1, "busy", {W(kDev2, 256)});
  t.Copy(kS1, kDev, kPageable, 256, CopyKind::kHostToDevice, true).HostWrite(kPageable, 256);
  t.Kernel(kS1, "reader", {R(kDev, 256)}).StreamSync(kS1);
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());

  // The device write is still the stream's: another stream must wait for it.
  auto racy = Given();
  racy.StreamCreate(kS2, kStreamNonBlocking);
  racy.Copy(kS1, kDev, kPageable, 256, CopyKind::kHostToDevice, true).Kernel(kS2, "reader", {R(kDev, 256)});
  const auto fs = racy.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "cross-stream-race");
}

TEST(Transfers, MemsetIsAsynchronousToTheHostOnDeviceMemory) {
  auto t = Given();
  t.Memset(kLegacy, kDev, 256, false).Kernel(kS1, "reader", {R(kDev, 256)});
  EXPECT_EQ(t.Run().size(), 1u);  // legacy-stream memset vs non-blocking stream
  auto blocking = Given();
  blocking.StreamCreate(0x20).Memset(kLegacy, kDev, 256, false).Kernel(0x20, "reader", {R(kDev, 256)});
  EXPECT_TRUE(blocking.Run().empty());
}

TEST(Transfers, MemsetOfPinnedHostMemoryIsSynchronous) {
  auto t = Given();
  t.Memset(kLegacy, kPinned, 256, false).HostRead(kPinned, 256);
  EXPECT_TRUE(t.Run().empty());
  auto async = Given();
  async.Memset(kS1, kPinned, 256, true).HostRead(kPinned, 256);
  EXPECT_EQ(async.Run().size(), 1u);
}

TEST(Transfers, MemsetOfManagedMemoryIsSynchronous) {
  // "... except when the target is pinned host memory or a Unified Memory
  // region, in which case they are fully synchronous."
  constexpr Address kManaged = 0x20000;
  auto sync = Given();
  sync.Malloc(kManaged, 256, MemoryKind::kManaged).Memset(kLegacy, kManaged, 256, false);
  sync.HostRead(kManaged, 256).Kernel(kS1, "reader", {R(kManaged, 256)});
  EXPECT_TRUE(sync.Run().empty()) << Summary(sync.Run());
  // "The Async versions are always asynchronous with respect to the host."
  auto async = Given();
  async.Malloc(kManaged, 256, MemoryKind::kManaged).Memset(kLegacy, kManaged, 256, true);
  async.HostRead(kManaged, 256).Kernel(kS1, "reader", {R(kManaged, 256)});
  auto fs = async.Run();
  EXPECT_EQ(CountRule(fs, "host-device-race"), 1u) << Summary(fs);
  EXPECT_EQ(CountRule(fs, "cross-stream-race"), 1u) << Summary(fs);
}

TEST(Transfers, SyncHostToHostCopyIsIssuedToTheLegacyStream) {
  // It waits for earlier work of blocking streams, as the legacy stream does ...
  constexpr Handle kBlocking = 0x20;
  constexpr Address kPinned2 = 0xa000;
  auto blocking = Given();
  blocking.StreamCreate(kBlocking).Malloc(kPinned2, 256, MemoryKind::kPinnedHost);
  blocking.Kernel(kBlocking, "fill", {W(kPinned, 256)}).Copy(kLegacy, kPinned2, kPinned, 256, CopyKind::kHostToHost, false);
  blocking.HostRead(kPinned2, 256).Kernel(kS1, "reader", {R(kPinned2, 256)});  // ... and the host waits for it
  EXPECT_TRUE(blocking.Run().empty()) << Summary(blocking.Run());
  // ... not for a non-blocking stream's.
  auto nonblocking = Given();
  nonblocking.Malloc(kPinned2, 256, MemoryKind::kPinnedHost);
  nonblocking.Kernel(kS1, "fill", {W(kPinned, 256)}).Copy(kLegacy, kPinned2, kPinned, 256, CopyKind::kHostToHost, false);
  auto fs = nonblocking.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "cross-stream-race");
  EXPECT_EQ(fs[0].accesses[1].op, "cudaMemcpy");
}

TEST(Transfers, HostToHostCopiesAreSynchronous) {
  auto t = Given();
  t.Copy(kS1, kPinned, kPageable, 256, CopyKind::kHostToHost, true).HostRead(kPinned, 256);
  EXPECT_TRUE(t.Run().empty());
}

TEST(Transfers, RegisteredHostMemoryCountsAsPinned) {
  auto t = Given();
  t.HostRegister(kPageable, 256).Copy(kS1, kPageable, kDev, 256, CopyKind::kDeviceToHost, true);
  auto fs = t.Run();
  EXPECT_EQ(CountRule(fs, "pageable-async-copy"), 0u) << Summary(fs);
}

}  // namespace
}  // namespace streamcheck::testing
