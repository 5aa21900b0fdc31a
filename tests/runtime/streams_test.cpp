// Stream ordering: issue order, the legacy default stream vs blocking and
// non-blocking streams, per-thread default streams, several devices.
#include <gtest/gtest.h>

#include "tests/runtime/finding_matchers.h"
#include "tests/runtime/trace_builder.h"

namespace streamcheck::testing {
namespace {

constexpr Handle kS1 = 0x10, kS2 = 0x20, kBuf = 0x1000;

TEST(Streams, SameStreamRunsInIssueOrder) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).Malloc(kBuf, 256);
  t.Kernel(kS1, "producer", {W(kBuf, 256)}).Kernel(kS1, "consumer", {R(kBuf, 256)}).Kernel(kS1, "writer", {W(kBuf, 256)});
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());
}

TEST(Streams, TwoStreamsWithoutSyncRaceReadAfterWrite) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking).Malloc(kBuf, 256);
  t.Kernel(kS1, "producer", {W(kBuf, 256)}).Kernel(kS2, "consumer", {R(kBuf, 256)});
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "cross-stream-race");
  EXPECT_EQ(fs[0].kind, FindingKind::kReadAfterWrite);
  EXPECT_EQ(fs[0].confidence, Confidence::kCertain);
  ASSERT_EQ(fs[0].accesses.size(), 2u);
  EXPECT_EQ(fs[0].accesses[0].op, "producer");
  EXPECT_EQ(fs[0].accesses[1].op, "consumer");
  EXPECT_EQ(fs[0].accesses[0].stream_handle, kS1);
  EXPECT_EQ(fs[0].accesses[1].stream_handle, kS2);
  EXPECT_EQ(fs[0].buffer.address, kBuf);
  EXPECT_EQ(fs[0].buffer.size, 256u);
  EXPECT_FALSE(fs[0].reason.empty());
  EXPECT_FALSE(fs[0].fix.empty());
}

TEST(Streams, WriteAfterReadAndWriteAfterWrite) {
  TraceBuilder war;
  war.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking).Malloc(kBuf, 64);
  war.Kernel(kS1, "reader", {R(kBuf, 64)}).Kernel(kS2, "writer", {W(kBuf, 64)});
  auto fs = war.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].kind, FindingKind::kWriteAfterRead);

  TraceBuilder waw;
  waw.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking).Malloc(kBuf, 64);
  waw.Kernel(kS1, "w1", {W(kBuf, 64)}).Kernel(kS2, "w2", {W(kBuf, 64)});
  fs = waw.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].kind, FindingKind::kWriteAfterWrite);
}

TEST(Streams, ReadReadSharingIsNotARace) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking).Malloc(kBuf, 64);
  t.Kernel(kS1, "r1", {R(kBuf, 64)}).Kernel(kS2, "r2", {R(kBuf, 64)});
  EXPECT_TRUE(t.Run().empty());
}

TEST(Streams, LegacyStreamWaitsForBlockingStreamsAndTheyWaitForIt) {
  TraceBuilder t;
  t.StreamCreate(kS1).Malloc(kBuf, 64);  // blocking (default flags)
  t.Kernel(kS1, "producer", {W(kBuf, 64)});
  t.Kernel(kLegacyStreamHandle, "legacy_consumer", {RW(kBuf, 64)});
  t.Kernel(kS1, "later_blocking_reader", {R(kBuf, 64)});
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());
}

TEST(Streams, CudaStreamLegacyHandleIsTheLegacyStream) {
  TraceBuilder t;
  t.StreamCreate(kS1).Malloc(kBuf, 64);
  t.Kernel(kS1, "producer", {W(kBuf, 64)}).Kernel(kCudaStreamLegacy, "consumer", {R(kBuf, 64)});
  EXPECT_TRUE(t.Run().empty());
}

TEST(Streams, NonBlockingStreamIsNotOrderedWithLegacyStream) {
  // The PyTorch docs' example: normal_() on the default stream, sum() on a side stream.
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).Malloc(kBuf, 4096);
  t.Kernel(kLegacyStreamHandle, "normal_kernel", {W(kBuf, 4096)}).FrameworkOp("aten::normal_");
  t.Kernel(kS1, "reduce_kernel", {R(kBuf, 4096)}).FrameworkOp("aten::sum");
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].rule, "cross-stream-race");
  EXPECT_EQ(fs[0].accesses[0].framework_op, "aten::normal_");
  EXPECT_EQ(fs[0].accesses[1].framework_op, "aten::sum");
  EXPECT_NE(fs[0].reason.find("cudaStreamNonBlocking"), std::string::npos) << fs[0].reason;
  EXPECT_NE(fs[0].fix.find("wait_stream"), std::string::npos) << fs[0].fix;

  // The other direction: legacy work after non-blocking work does not wait either.
  TraceBuilder back;
  back.StreamCreate(kS1, kStreamNonBlocking).Malloc(kBuf, 64);
  back.Kernel(kS1, "side", {W(kBuf, 64)}).Kernel(kLegacyStreamHandle, "main", {R(kBuf, 64)});
  EXPECT_EQ(back.Run().size(), 1u);
}

TEST(Streams, NonBlockingFixedWithEvent) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).EventCreate(0xe1).Malloc(kBuf, 4096);
  t.Kernel(kLegacyStreamHandle, "normal_kernel", {W(kBuf, 4096)});
  t.Record(0xe1, kLegacyStreamHandle).Wait(kS1, 0xe1);  // s.wait_stream(current_stream())
  t.Kernel(kS1, "reduce_kernel", {R(kBuf, 4096)});
  EXPECT_TRUE(t.Run().empty());
}

TEST(Streams, PerThreadDefaultStreamIsBlockingAndPerThread) {
  // Synchronizes with the legacy stream...
  TraceBuilder legacy;
  legacy.Malloc(kBuf, 64);
  legacy.Kernel(kCudaStreamPerThread, "ptds_writer", {W(kBuf, 64)});
  legacy.Kernel(kLegacyStreamHandle, "legacy_reader", {R(kBuf, 64)});
  EXPECT_TRUE(legacy.Run().empty());

  // ... but per-thread streams of two threads are not ordered with each other.
  TraceBuilder two;
  two.Malloc(kBuf, 64);
  two.OnThread(1).Kernel(kCudaStreamPerThread, "t1_writer", {W(kBuf, 64)});
  two.OnThread(2).Kernel(kCudaStreamPerThread, "t2_reader", {R(kBuf, 64)});
  auto fs = two.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_NE(fs[0].reason.find("per-thread"), std::string::npos) << fs[0].reason;

  // ... nor with other (even blocking) streams.
  TraceBuilder other;
  other.StreamCreate(kS1).Malloc(kBuf, 64);
  other.Kernel(kCudaStreamPerThread, "ptds_writer", {W(kBuf, 64)}).Kernel(kS1, "s1_reader", {R(kBuf, 64)});
  EXPECT_EQ(other.Run().size(), 1u);
}

TEST(Streams, SetDeviceChangesWhatHandleZeroMeans) {
  TraceBuilder t;
  t.Malloc(kBuf, 64);
  t.SetDevice(0).Kernel(kLegacyStreamHandle, "dev0_writer", {W(kBuf, 64)});
  t.SetDevice(1).Kernel(kLegacyStreamHandle, "dev1_reader", {R(kBuf, 64)});
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].accesses[0].device, 0);
  EXPECT_EQ(fs[0].accesses[1].device, 1);
  EXPECT_NE(fs[0].reason.find("different devices"), std::string::npos) << fs[0].reason;

  TraceBuilder fixed;
  fixed.Malloc(kBuf, 64);
  fixed.SetDevice(0).Kernel(kLegacyStreamHandle, "dev0_writer", {W(kBuf, 64)}).DeviceSync();
  fixed.SetDevice(1).Kernel(kLegacyStreamHandle, "dev1_reader", {R(kBuf, 64)});
  EXPECT_TRUE(fixed.Run().empty());
}

TEST(Streams, DestroyedStreamHandleReusedIsANewStream) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking).Malloc(kBuf, 64);
  t.Kernel(kS1, "old", {W(kBuf, 64)}).StreamDestroy(kS1).StreamCreate(kS1, kStreamNonBlocking);
  t.Kernel(kS1, "new", {R(kBuf, 64)});
  EXPECT_EQ(t.Run().size(), 1u);  // the new stream does not inherit the old one's order
}

}  // namespace
}  // namespace streamcheck::testing
