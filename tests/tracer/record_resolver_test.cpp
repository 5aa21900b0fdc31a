#include "tracer/record_resolver.h"

#include <gtest/gtest.h>

namespace streamcheck::tracer {
namespace {

constexpr Address kA = 0x7f0000000000, kSegment = 0x7f0000100000;
constexpr uint64_t kSize = 4096;
constexpr ThreadId kMain = 1, kOther = 2;

TraceRecord Record(OpCode op, ThreadId thread = kMain) {
  TraceRecord r;
  r.op = op;
  r.thread = thread;
  return r;
}
TraceRecord Malloc(Address base, uint64_t size) {
  TraceRecord r = Record(OpCode::kMalloc);
  r.dst = base, r.size = size;
  return r;
}
TraceRecord Block(OpCode op, Address base, uint64_t size, ThreadId thread = kMain) {
  TraceRecord r = Record(op, thread);
  r.dst = base, r.size = size;
  return r;
}
// A launch as the program's thread queues it: its argument words.
TraceRecord Launch(std::vector<Address> words, ThreadId thread = kMain) {
  TraceRecord r = Record(OpCode::kKernelLaunch, thread);
  r.pointer_words = true;
  for (Address w : words) r.accesses.push_back({w, 0, AccessMode::kUnknown});
  return r;
}
// What Resolve makes of a launch made now.
std::vector<MemoryAccess> Accesses(RecordResolver& resolver, std::vector<Address> words, ThreadId thread = kMain) {
  TraceRecord r = Launch(std::move(words), thread);
  EXPECT_TRUE(resolver.Resolve(r));
  EXPECT_FALSE(r.pointer_words);
  return r.accesses;
}

TEST(RecordResolver, LaunchesMatchTheAllocationsLiveWhenTheyWereMade) {
  RecordResolver resolver;
  EXPECT_TRUE(Accesses(resolver, {kA}).empty());
  TraceRecord malloc = Malloc(kA, kSize);
  EXPECT_TRUE(resolver.Resolve(malloc));
  EXPECT_EQ(Accesses(resolver, {kA, 12345}), (std::vector<MemoryAccess>{{kA, kSize, AccessMode::kUnknown}}));
  TraceRecord free = Record(OpCode::kFree);
  free.dst = kA;
  EXPECT_TRUE(resolver.Resolve(free));
  EXPECT_TRUE(Accesses(resolver, {kA}).empty());
  TraceRecord async = Record(OpCode::kMallocAsync);
  async.dst = kA, async.size = 2 * kSize;
  EXPECT_TRUE(resolver.Resolve(async));
  EXPECT_EQ(Accesses(resolver, {kA})[0].size, 2 * kSize);
}

TEST(RecordResolver, CopiesAndMemsetsBoundPointersIntoTheirAllocation) {
  RecordResolver resolver;
  TraceRecord malloc = Malloc(kA, kSize);
  resolver.Resolve(malloc);
  TraceRecord copy = Record(OpCode::kMemcpy);
  copy.dst = kA + 1024, copy.src = 0x1000, copy.size = 1024;  // from pageable host memory
  EXPECT_TRUE(resolver.Resolve(copy));
  EXPECT_EQ(Accesses(resolver, {kA + 1024})[0].size, 1024u);
  EXPECT_EQ(Accesses(resolver, {kA})[0].size, 1024u);  // the copy's start bounds the first chunk
  // A 2D memset of 3 rows of 100 bytes, pitch 512: it ends 1124 bytes after its start.
  TraceRecord memset = Record(OpCode::kMemset);
  memset.dst = kA + 2048, memset.size = 100, memset.height = 3, memset.dst_pitch = 512;
  EXPECT_TRUE(resolver.Resolve(memset));
  EXPECT_EQ(Accesses(resolver, {kA + 2048})[0].size, 1124u);
}

TEST(RecordResolver, PoolBlocksAreBookedAndFreesOfUnknownBlocksDropped) {
  RecordResolver resolver;
  TraceRecord segment = Malloc(kSegment, 1 << 20);
  resolver.Resolve(segment);
  TraceRecord stale_free = Block(OpCode::kPoolBlockFree, kSegment + 512, 0);
  EXPECT_FALSE(resolver.Resolve(stale_free));  // handed out before the plugin attached
  TraceRecord allocate = Block(OpCode::kPoolBlockAllocate, kSegment, 512);
  EXPECT_TRUE(resolver.Resolve(allocate));
  EXPECT_EQ(Accesses(resolver, {kSegment})[0].size, 512u);
  EXPECT_TRUE(resolver.allocations().HasPoolBlock(kSegment));
  TraceRecord free = Block(OpCode::kPoolBlockFree, kSegment, 0);
  EXPECT_TRUE(resolver.Resolve(free));
  EXPECT_FALSE(resolver.allocations().HasPoolBlock(kSegment));
  EXPECT_TRUE(Accesses(resolver, {kSegment}).empty());  // a stale pointer into a freed block
}

// Each thread's open ops refine its own launches only; a block allocated
// inside an op is written by it.
TEST(RecordResolver, OpRegionsAreTheLaunchingThreads) {
  RecordResolver resolver;
  TraceRecord segment = Malloc(kSegment, 1 << 20);
  resolver.Resolve(segment);
  TraceRecord input_block = Block(OpCode::kPoolBlockAllocate, kSegment, 8192, kOther);
  resolver.Resolve(input_block);
  FrameworkOpStack ops;
  const StreamcheckTensorRegion view{kSegment + 1024, kSegment + 2048, 0};
  ops.Begin(7, 0, &view, 1);
  TraceRecord next, open_ops;
  ASSERT_TRUE(ops.Publish(&next, &open_ops));
  open_ops.thread = kMain;
  EXPECT_FALSE(resolver.Resolve(open_ops));  // the tracer's own record
  TraceRecord output = Block(OpCode::kPoolBlockAllocate, kSegment + 8192, 512);
  resolver.Resolve(output);
  EXPECT_EQ(Accesses(resolver, {kSegment + 1024, kSegment + 8192}),
            (std::vector<MemoryAccess>{{kSegment + 1024, 1024, AccessMode::kRead},
                                       {kSegment + 8192, 512, AccessMode::kWrite}}));
  // The same words launched from another thread: the pool blocks' extents.
  EXPECT_EQ(Accesses(resolver, {kSegment + 1024, kSegment + 8192}, kOther),
            (std::vector<MemoryAccess>{{kSegment + 1024, 1, AccessMode::kUnknown},
                                       {kSegment + 8192, 512, AccessMode::kUnknown}}));
  // The op ends: the thread's next record closes it on the worker, for that
  // thread only, and keeps the mark out of the trace.
  ops.End();
  TraceRecord launch = Launch({kSegment + 8192});
  EXPECT_FALSE(ops.Publish(&launch, &open_ops));
  ASSERT_TRUE(launch.closes_framework_ops);
  TraceRecord other_thread = Launch({kSegment + 1024}, kOther);
  other_thread.closes_framework_ops = true;
  resolver.Resolve(other_thread);
  EXPECT_EQ(Accesses(resolver, {kSegment + 1024})[0], (MemoryAccess{kSegment + 1024, 1024, AccessMode::kRead}));
  EXPECT_TRUE(resolver.Resolve(launch));
  EXPECT_FALSE(launch.closes_framework_ops);
  EXPECT_EQ(launch.accesses[0].mode, AccessMode::kUnknown);
  EXPECT_EQ(Accesses(resolver, {kSegment + 1024})[0], (MemoryAccess{kSegment + 1024, 1, AccessMode::kUnknown}));
}

}  // namespace
}  // namespace streamcheck::tracer
