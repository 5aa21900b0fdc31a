// Allocation lifetimes: cudaFree synchronizes the device; cudaFreeAsync is a
// stream operation; stream-ordered allocations are usable in stream order.
#include <gtest/gtest.h>

#include "tests/runtime/finding_matchers.h"
#include "tests/runtime/trace_builder.h"

namespace streamcheck::testing {
namespace {

constexpr Handle kS1 = 0x10, kS2 = 0x20, kE = 0xe1;
constexpr Address kBuf = 0x1000;

TraceBuilder Given() {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking).EventCreate(kE);
  return t;
}

TEST(Lifetime, CudaFreeSynchronizesTheDevice) {
  auto t = Given();
  t.Malloc(kBuf, 64).Kernel(kS1, "user", {R(kBuf, 64)}).Free(kBuf);
  EXPECT_TRUE(t.Run().empty());
}

// Work queued on a stream that is destroyed before a device-wide
// synchronization still runs, and the synchronization waits for it.
TraceBuilder FillOnDestroyedStream() {
  TraceBuilder t;
  t.StreamCreate(0x20, kStreamNonBlocking).StreamCreate(0x30, kStreamNonBlocking).Malloc(0x1000, 256).Malloc(0x8000, 64);
  t.Kernel(0x20, "fill", {W(0x1000, 256)}).StreamDestroy(0x20);
  return t;
}

TEST(Lifetime, CudaFreeWaitsForStreamsDestroyedBeforeIt) {
  auto free_it = FillOnDestroyedStream();
  free_it.Free(0x1000);
  EXPECT_TRUE(free_it.Run().empty()) << Summary(free_it.Run());
  auto free_other = FillOnDestroyedStream();  // any cudaFree synchronizes the device
  free_other.Free(0x8000).Kernel(0x30, "read", {R(0x1000, 256)});
  EXPECT_TRUE(free_other.Run().empty()) << Summary(free_other.Run());
  auto device_sync = FillOnDestroyedStream();
  device_sync.DeviceSync().Kernel(0x30, "read", {R(0x1000, 256)});
  EXPECT_TRUE(device_sync.Run().empty()) << Summary(device_sync.Run());
  auto none = FillOnDestroyedStream();  // without one the work is still pending
  none.Kernel(0x30, "read", {R(0x1000, 256)});
  EXPECT_EQ(CountRule(none.Run(), "cross-stream-race"), 1u) << Summary(none.Run());
}

TEST(Lifetime, UseAfterFree) {
  auto t = Given();
  t.Malloc(kBuf, 64).Free(kBuf).Kernel(kS1, "late_user", {R(kBuf, 64)});
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "use-after-free");
  EXPECT_EQ(fs[0].accesses[0].api, "cudaFree");
}

// Freed memory's addresses may go back to the system, and the host may map
// them again for memory of its own (a malloc's mmap: cuda-samples'
// UnifiedMemoryPerf gets one where managed, pinned and device buffers were),
// which an asynchronous copy then fills: the host side of a copy is host
// memory, never the freed buffer. A device-side use is a use after free.
TEST(Lifetime, HostMemoryMappedAgainAfterAFreeIsNewMemory) {
  constexpr Address kDevice = 0x9000;
  for (MemoryKind kind : {MemoryKind::kPinnedHost, MemoryKind::kManaged, MemoryKind::kDevice}) {
    auto t = Given();
    t.Malloc(kDevice, 64).Malloc(kBuf, 64, kind).Free(kBuf);
    t.Copy(kS1, kBuf, kDevice, 64, CopyKind::kDeviceToHost, true).StreamSync(kS1);
    t.Copy(kS1, kDevice, kBuf, 64, CopyKind::kHostToDevice, true).StreamSync(kS1);
    EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());
  }
  auto device = Given();
  device.Malloc(kDevice, 64).Malloc(kBuf, 64).Free(kBuf);
  device.Copy(kS1, kBuf, kDevice, 64, CopyKind::kDeviceToDevice, true).StreamSync(kS1);
  EXPECT_EQ(CountRule(device.Run(), "use-after-free"), 1u) << Summary(device.Run());
}

TEST(Lifetime, ReallocationStartsFresh) {
  auto t = Given();
  t.Malloc(kBuf, 64).Kernel(kS1, "a", {W(kBuf, 64)}).Free(kBuf).Malloc(kBuf, 64).Kernel(kS2, "b", {W(kBuf, 64)});
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());
}

TEST(Lifetime, FreeAsyncWhileAnotherStreamStillUsesTheMemory) {
  auto t = Given();
  t.MallocAsync(kBuf, 64, kS1).Kernel(kS1, "init", {W(kBuf, 64)}).Record(kE, kS1).Wait(kS2, kE);
  t.Kernel(kS2, "reader", {R(kBuf, 64)}).FreeAsync(kBuf, kS1);
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "free-while-in-use");
  EXPECT_EQ(fs[0].accesses[0].op, "reader");
  EXPECT_EQ(fs[0].accesses[1].api, "cudaFreeAsync");
}

TEST(Lifetime, FreeAsyncOrderedAfterTheLastUse) {
  auto t = Given();
  t.MallocAsync(kBuf, 64, kS1).Kernel(kS1, "init", {W(kBuf, 64)}).Record(kE, kS1).Wait(kS2, kE);
  t.Kernel(kS2, "reader", {R(kBuf, 64)}).Record(kE, kS2).Wait(kS1, kE).FreeAsync(kBuf, kS1);
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());
}

TEST(Lifetime, StreamOrderedAllocationUsedOnAnotherStreamTooEarly) {
  auto t = Given();
  t.MallocAsync(kBuf, 64, kS1).Kernel(kS2, "user", {W(kBuf, 64)});
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "use-before-allocation");

  auto fixed = Given();
  fixed.MallocAsync(kBuf, 64, kS1).Record(kE, kS1).Wait(kS2, kE).Kernel(kS2, "user", {W(kBuf, 64)});
  EXPECT_TRUE(fixed.Run().empty());
}

TEST(Lifetime, PoolReuseOnAnotherStreamIsOrderedByThePool) {
  auto t = Given();
  t.MallocAsync(kBuf, 64, kS1).Kernel(kS1, "a", {W(kBuf, 64)}).FreeAsync(kBuf, kS1);
  t.MallocAsync(kBuf, 64, kS2).Kernel(kS2, "b", {W(kBuf, 64)});
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());
}

TEST(Lifetime, UseAfterFreeAsync) {
  auto t = Given();
  t.MallocAsync(kBuf, 64, kS1).FreeAsync(kBuf, kS1).Kernel(kS1, "late", {R(kBuf, 64)});
  EXPECT_EQ(CountRule(t.Run(), "use-after-free"), 1u);
}

// Caching-allocator blocks (PyTorch): a block inside a cudaMalloc'd segment,
// handed to a stream and given back on it.
constexpr Address kSegment = 0x100000, kBlock = kSegment + 512;

TraceBuilder BlockReadOnTheOtherStream() {
  auto t = Given();  // a tensor of s1 read on s2, then freed on s1
  t.Malloc(kSegment, 4096).PoolBlockAllocate(kBlock, 512, kS1).FrameworkOp("aten::empty");
  t.Kernel(kS1, "fill", {W(kBlock, 512)}).Record(kE, kS1).Wait(kS2, kE).Kernel(kS2, "reader", {R(kBlock, 512)});
  return t;
}

TEST(Lifetime, PoolBlockReusedWhileAnotherStreamStillReadsIt) {
  auto t = BlockReadOnTheOtherStream();  // no Tensor.record_stream(s2)
  t.PoolBlockFree(kBlock, kS1).PoolBlockAllocate(kBlock, 512, kS1).FrameworkOp("aten::empty");
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "free-while-in-use");
  EXPECT_EQ(fs[0].accesses[0].op, "reader");
  EXPECT_EQ(fs[0].accesses[1].framework_op, "aten::empty");
  EXPECT_NE(fs[0].message.find("reuses memory"), std::string::npos) << fs[0].message;
  EXPECT_EQ(fs[0].buffer.address, kBlock);  // the block, not its segment
  EXPECT_EQ(fs[0].buffer.size, 512u);
  EXPECT_EQ(fs[0].buffer.allocated_by, "aten::empty");
}

TEST(Lifetime, PoolBlockFreedButNotReusedIsHarmless) {
  auto t = BlockReadOnTheOtherStream();
  t.PoolBlockFree(kBlock, kS1);
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());
}

TEST(Lifetime, PoolBlockReusedAfterItsStreamWaitedForTheReader) {
  auto t = BlockReadOnTheOtherStream();  // the next allocation on s1 comes after s1 waited for s2
  t.PoolBlockFree(kBlock, kS1).Record(kE, kS2).Wait(kS1, kE).PoolBlockAllocate(kBlock, 512, kS1);
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());
}

TEST(Lifetime, PoolBlockFreedAfterTheAllocatorsEventOnTheOtherStreamCompleted) {
  auto t = BlockReadOnTheOtherStream();  // Tensor.record_stream(s2): freed once its event on s2 completed
  t.Record(kE, kS2).EventQuery(kE, 0).PoolBlockFree(kBlock, kS1).PoolBlockAllocate(kBlock, 512, kS1);
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());

  auto pending = BlockReadOnTheOtherStream();  // the query said "not ready": still in use
  pending.Record(kE, kS2).EventQuery(kE, 600).PoolBlockFree(kBlock, kS1).PoolBlockAllocate(kBlock, 512, kS1);
  EXPECT_EQ(CountRule(pending.Run(), "free-while-in-use"), 1u);
}

TEST(Lifetime, PoolBlockReusedOnItsStreamStartsFresh) {
  auto t = Given();
  t.Malloc(kSegment, 4096).PoolBlockAllocate(kBlock, 512, kS1).Kernel(kS1, "a", {W(kBlock, 512)});
  t.PoolBlockFree(kBlock, kS1).PoolBlockAllocate(kBlock, 512, kS1).Kernel(kS1, "b", {W(kBlock, 512)});
  t.PoolBlockFree(kBlock, kS1).Free(kSegment);  // the segment outlives its blocks
  EngineStats stats;
  EXPECT_TRUE(t.Run(&stats).empty());
  EXPECT_TRUE(stats.anomalies.empty());
}

TEST(Lifetime, PoolBlocksOfACaptureBelongToTheGraphsPrivatePool) {
  constexpr Handle kGraph = 0x6000, kExec = 0x7000;
  auto t = Given();  // torch.cuda.graph: temporaries allocated and freed while capturing
  t.Malloc(kSegment, 4096).BeginCapture(kS1).PoolBlockAllocate(kBlock, 512, kS1);
  t.Kernel(kS1, "temp_writer", {W(kBlock, 512)}).Kernel(kS1, "temp_reader", {R(kBlock, 512)});
  t.PoolBlockAllocate(kBlock + 512, 512, kS1).Kernel(kS1, "output_writer", {W(kBlock + 512, 512)});
  t.PoolBlockFree(kBlock, kS1).EndCapture(kS1, kGraph).Instantiate(kExec, kGraph);
  t.Launch(kExec, kS1).Launch(kExec, kS1);
  t.PoolBlockFree(kBlock + 512, kS2);  // the static output dies with a replay in flight: still the graph's
  t.BeginCapture(kS1).PoolBlockAllocate(kBlock + 512, 512, kS1).EndCapture(kS1, kGraph);  // reused by a capture
  EngineStats stats;
  EXPECT_TRUE(t.Run(&stats).empty()) << Summary(t.Run());
  EXPECT_TRUE(stats.anomalies.empty());
}

// PyTorch's CUDA graph trees (torch.compile's mode="reduce-overhead"): the
// graph's pool block, written by replays on the program's stream (s2), is
// handed out again on the trees' own stream (s1) when they restore the pool's
// state for the next graph, before they synchronize the device and use it.
// The allocator's stream order does not cover replays it never saw, so that
// allocation uses nothing (compiled_graphs.py: eight errors on a correct
// program); the next real access is checked against the replays.
TraceBuilder GraphBlockReplayedThenHandedOutAgain() {
  constexpr Handle kGraph = 0x6000, kExec = 0x7000;
  auto t = Given();
  t.Malloc(kSegment, 4096).BeginCapture(kS1).PoolBlockAllocate(kBlock, 512, kS1);
  t.Kernel(kS1, "graph_writer", {W(kBlock, 512)}).PoolBlockFree(kBlock, kS1).EndCapture(kS1, kGraph);
  t.Instantiate(kExec, kGraph).Launch(kExec, kS2).Launch(kExec, kS2);
  t.PoolBlockAllocate(kBlock, 512, kS1);
  return t;
}

TEST(Lifetime, AGraphPoolsBlockHandedOutAgainIsNoUseOfIt) {
  auto t = GraphBlockReplayedThenHandedOutAgain();
  t.DeviceSync().Kernel(kS1, "next_graph_warmup", {W(kBlock, 512)});
  EngineStats stats;
  EXPECT_TRUE(t.Run(&stats).empty()) << Summary(t.Run());
  EXPECT_TRUE(stats.anomalies.empty());
}

TEST(Lifetime, AGraphPoolsBlockUsedWhileAReplayMayRunIsARace) {
  auto t = GraphBlockReplayedThenHandedOutAgain();  // no synchronization before the use
  t.Kernel(kS1, "next_graph_warmup", {W(kBlock, 512)});
  const auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "cross-stream-race");
  EXPECT_EQ(fs[0].accesses[1].op, "next_graph_warmup");
}

TEST(Lifetime, MemoryOfAFreedSegmentIsNoLongerAGraphsPool) {
  auto t = GraphBlockReplayedThenHandedOutAgain();  // the pool's segment released, then cudaMalloc'ed anew
  t.PoolBlockFree(kBlock, kS1).Free(kSegment).Malloc(kSegment, 4096).PoolBlockAllocate(kBlock, 512, kS1);
  t.Kernel(kS2, "reader", {R(kBlock, 512)}).PoolBlockFree(kBlock, kS1).PoolBlockAllocate(kBlock, 512, kS1);
  EXPECT_EQ(CountRule(t.Run(), "free-while-in-use"), 1u) << Summary(t.Run());
}

TEST(Lifetime, PoolBlockUsedOnAnotherStreamBeforeItsAllocationIsOrdered) {
  auto t = Given();
  t.Malloc(kSegment, 4096).PoolBlockAllocate(kBlock, 512, kS1).Kernel(kS2, "user", {W(kBlock, 512)});
  EXPECT_EQ(CountRule(t.Run(), "use-before-allocation"), 1u);
}

TEST(Lifetime, HostFunctionsRunInStreamOrder) {
  auto t = Given();
  t.Malloc(kBuf, 64).Kernel(kS1, "producer", {W(kBuf, 64)}).HostFunc(kS1).Record(kE, kS1).Wait(kS2, kE);
  t.Kernel(kS2, "consumer", {R(kBuf, 64)});
  EXPECT_TRUE(t.Run().empty());
}

}  // namespace
}  // namespace streamcheck::testing
