#include "tracer/frameworks/framework_ops.h"

#include <gtest/gtest.h>

#include "tracer/kernel_access/kernel_arguments.h"

namespace streamcheck::tracer {
namespace {

constexpr Address kSegment = 0x7f0000000000;
constexpr uint64_t kSegmentSize = 1 << 20;
constexpr StringId kSum = 7, kNormal = 8;

MemoryAccess At(Address a, uint64_t size, AccessMode m) { return {a, size, m}; }
// An extent the access-range policy gives: past its first byte, a guess.
MemoryAccess Guessed(Address a, uint64_t size, AccessMode m) { return {a, size, m, AccessCertainty::kFirstByte}; }

// One thread's ops as the tracer splits them: opened and closed on the
// program's side, their regions published to the worker's side in front of
// the thread's next record (here: before each refinement or block).
class Ops {
 public:
  void Begin(StringId name, StackId stack, const StreamcheckTensorRegion* regions, size_t count) {
    program_.Begin(name, stack, regions, count);
  }
  void End() { program_.End(); }
  bool empty() const { return program_.empty(); }
  StringId name() const { return program_.name(); }
  StackId stack() const { return program_.stack(); }
  void AddFreshBlock(Address base, uint64_t size) {
    Publish();
    worker_.AddFreshBlock(base, size);
  }
  void Refine(std::vector<MemoryAccess>* accesses) {
    Publish();
    worker_.Refine(accesses);
  }
  int published() const { return published_; }
  int closed() const { return closed_; }

 private:
  // What the tracer queues in front of, or marks on, the thread's next record.
  void Publish() {
    TraceRecord next, open_ops;
    if (program_.Publish(&next, &open_ops)) {
      EXPECT_FALSE(next.closes_framework_ops);
      EXPECT_EQ(open_ops.op, kOpenFrameworkOps);
      worker_.Apply(open_ops);
      ++published_;
    }
    if (next.closes_framework_ops) {
      worker_.CloseAll();
      ++closed_;
    }
  }
  FrameworkOpStack program_;
  OpRegionStack worker_;
  int published_ = 0, closed_ = 0;
};

// A pointer argument into a tensor takes the tensor's bytes and the schema's
// mode, whatever the access-range policy guessed.
TEST(FrameworkOps, PointerIntoATensorTakesItsBytesAndMode) {
  Ops ops;
  const StreamcheckTensorRegion input{kSegment + 512, kSegment + 512 + 4096, 0};
  ops.Begin(kSum, 3, &input, 1);
  std::vector<MemoryAccess> accesses = {At(kSegment + 512, 1, AccessMode::kUnknown)};
  ops.Refine(&accesses);
  EXPECT_EQ(accesses[0], At(kSegment + 512, 4096, AccessMode::kRead));
  EXPECT_EQ(ops.name(), kSum);
  EXPECT_EQ(ops.stack(), 3u);
}

// Two views of one storage passed to different ops: each op sees its view's
// bytes only, so disjoint halves never meet.
TEST(FrameworkOps, ViewsAreExact) {
  Ops ops;
  const StreamcheckTensorRegion second_half{kSegment + 2048, kSegment + 4096, 1};
  ops.Begin(kNormal, 0, &second_half, 1);
  std::vector<MemoryAccess> accesses = {At(kSegment + 2048, kSegmentSize - 2048, AccessMode::kUnknown)};
  ops.Refine(&accesses);
  EXPECT_EQ(accesses[0], At(kSegment + 2048, 2048, AccessMode::kWrite));
}

TEST(FrameworkOps, OutermostOpNamesTheWorkInnermostRegionsWin) {
  Ops ops;
  const StreamcheckTensorRegion whole{kSegment, kSegment + 4096, 0};
  const StreamcheckTensorRegion slice{kSegment, kSegment + 1024, 1};
  ops.Begin(kSum, 1, &whole, 1);
  ops.Begin(kNormal, 2, &slice, 1);  // nested op (e.g. aten::mm inside aten::matmul)
  std::vector<MemoryAccess> accesses = {At(kSegment, 1, AccessMode::kUnknown)};
  ops.Refine(&accesses);
  EXPECT_EQ(accesses[0], At(kSegment, 1024, AccessMode::kWrite));
  EXPECT_EQ(ops.name(), kSum);
  ops.End();
  accesses = {At(kSegment, 1, AccessMode::kUnknown)};
  ops.Refine(&accesses);
  EXPECT_EQ(accesses[0], At(kSegment, 4096, AccessMode::kRead));
  ops.End();
  EXPECT_TRUE(ops.empty());
  EXPECT_EQ(ops.name(), 0u);
}

// Autograd's engine opens an op per backward node on a thread without
// Python; the node inside it brings the stack of its forward op.
TEST(FrameworkOps, OutermostStackOrTheFirstNestedOne) {
  Ops ops;
  ops.Begin(kSum, 0, nullptr, 0);
  EXPECT_EQ(ops.stack(), 0u);
  ops.Begin(kNormal, 7, nullptr, 0);
  ops.Begin(kNormal, 9, nullptr, 0);
  EXPECT_EQ(ops.name(), kSum);
  EXPECT_EQ(ops.stack(), 7u);
  ops.End();
  ops.End();
  EXPECT_EQ(ops.stack(), 0u);
  ops.End();
  ops.Begin(kSum, 3, nullptr, 0);
  ops.Begin(kNormal, 7, nullptr, 0);
  EXPECT_EQ(ops.stack(), 3u);
}

// An autograd thread's wrapper op says "no stack worth capturing"; the
// node inside it may still bring its forward op's stack, which wins.
TEST(FrameworkOps, ARealStackWinsOverNone) {
  Ops ops;
  ops.Begin(kSum, STREAMCHECK_STACK_NONE, nullptr, 0);
  EXPECT_EQ(ops.stack(), STREAMCHECK_STACK_NONE);
  ops.Begin(kNormal, 0, nullptr, 0);
  EXPECT_EQ(ops.stack(), STREAMCHECK_STACK_NONE);
  ops.Begin(kNormal, 7, nullptr, 0);
  EXPECT_EQ(ops.stack(), 7u);
  ops.End();
  ops.End();
  ops.End();
  ops.Begin(kSum, 0, nullptr, 0);
  ops.Begin(kNormal, STREAMCHECK_STACK_NONE, nullptr, 0);
  EXPECT_EQ(ops.stack(), STREAMCHECK_STACK_NONE);
}

TEST(FrameworkOps, ManyTensorsAndViewsInsideOthers) {
  // An op over a list of 300 adjacent tensors (a _foreach op), plus a big
  // tensor and a view inside it: each pointer finds its own region.
  std::vector<StreamcheckTensorRegion> regions;
  for (Address i = 0; i < 300; ++i) regions.push_back({kSegment + i * 1024, kSegment + i * 1024 + 512, i % 2 == 0});
  const Address big = kSegment + (1 << 20);
  regions.push_back({big, big + 65536, 0});
  regions.push_back({big + 4096, big + 8192, 1});
  Ops ops;
  ops.Begin(kSum, 0, regions.data(), regions.size());
  std::vector<MemoryAccess> accesses;
  for (Address i = 0; i < 300; ++i) accesses.push_back(At(kSegment + i * 1024 + 100, 1, AccessMode::kUnknown));
  accesses.push_back(At(kSegment + 700, 1, AccessMode::kUnknown));  // between two tensors
  accesses.push_back(At(big + 5000, 1, AccessMode::kUnknown));
  accesses.push_back(At(big + 9000, 1, AccessMode::kUnknown));
  ops.Refine(&accesses);
  for (Address i = 0; i < 300; ++i)
    EXPECT_EQ(accesses[i], At(kSegment + i * 1024, 512, i % 2 == 0 ? AccessMode::kWrite : AccessMode::kRead)) << i;
  EXPECT_EQ(accesses[300], At(kSegment + 700, 1, AccessMode::kUnknown));
  EXPECT_EQ(accesses[301], At(big + 4096, 4096, AccessMode::kWrite));
  EXPECT_EQ(accesses[302], At(big, 65536, AccessMode::kRead));
}

TEST(FrameworkOps, MemoryAllocatedInsideAnOpIsWritten) {
  Ops ops;
  ops.Begin(kSum, 0, nullptr, 0);
  ops.AddFreshBlock(kSegment + 8192, 512);  // sum's output
  std::vector<MemoryAccess> accesses = {At(kSegment + 8192, 512, AccessMode::kUnknown)};
  ops.Refine(&accesses);
  EXPECT_EQ(accesses[0].mode, AccessMode::kWrite);
  ops.End();
  ops.AddFreshBlock(kSegment, 512);  // outside any op: nothing to attach it to
  EXPECT_TRUE(ops.empty());
}

// The worker hears of an op only when a record of the thread follows while
// it is open, and of a closed op only when a record follows its end: a
// record of its own where an op around it stays open, the next record itself
// where none does. A nested op that ends keeps what the worker added to the
// op around it.
TEST(FrameworkOps, RegionsTravelOnlyInFrontOfTheThreadsNextRecord) {
  Ops ops;
  const StreamcheckTensorRegion whole{kSegment, kSegment + 4096, 0};
  const StreamcheckTensorRegion slice{kSegment, kSegment + 1024, 1};
  ops.Begin(kSum, 0, &whole, 1);
  ops.End();
  ops.Begin(kSum, 0, &whole, 1);
  EXPECT_EQ(ops.published(), 0);
  std::vector<MemoryAccess> accesses = {At(kSegment, 1, AccessMode::kUnknown)};
  ops.Refine(&accesses);
  EXPECT_EQ(ops.published(), 1);
  ops.AddFreshBlock(kSegment + 8192, 512);  // the op's output
  ops.Refine(&accesses);
  EXPECT_EQ(ops.published(), 1);  // nothing changed
  ops.Begin(kNormal, 0, &slice, 1);
  accesses = {At(kSegment, 1, AccessMode::kUnknown)};
  ops.Refine(&accesses);
  EXPECT_EQ(accesses[0], At(kSegment, 1024, AccessMode::kWrite));
  ops.End();
  accesses = {At(kSegment, 1, AccessMode::kUnknown), At(kSegment + 8192, 1, AccessMode::kUnknown)};
  ops.Refine(&accesses);
  EXPECT_EQ(ops.published(), 3);
  EXPECT_EQ(accesses[0], At(kSegment, 4096, AccessMode::kRead));
  EXPECT_EQ(accesses[1], At(kSegment + 8192, 512, AccessMode::kWrite));
  EXPECT_EQ(ops.closed(), 0);
  ops.End();
  accesses = {At(kSegment, 1, AccessMode::kUnknown)};
  ops.Refine(&accesses);
  EXPECT_EQ(ops.published(), 3);
  EXPECT_EQ(ops.closed(), 1);
  EXPECT_EQ(accesses[0], At(kSegment, 1, AccessMode::kUnknown));
  ops.Refine(&accesses);
  EXPECT_EQ(ops.closed(), 1);  // closed once
  // An op opened after all closed is the worker's only one.
  ops.Begin(kNormal, 0, &slice, 1);
  accesses = {At(kSegment + 2048, 1, AccessMode::kUnknown)};
  ops.Refine(&accesses);
  EXPECT_EQ(ops.published(), 4);
  EXPECT_EQ(accesses[0], At(kSegment + 2048, 1, AccessMode::kUnknown));
}

TEST(FrameworkOps, PointersOutsideEveryRegionKeepThePolicysGuess) {
  Ops ops;
  const StreamcheckTensorRegion input{kSegment, kSegment + 512, 0};
  ops.Begin(kSum, 0, &input, 1);
  const MemoryAccess workspace = At(kSegment + 65536, 4096, AccessMode::kUnknown);
  std::vector<MemoryAccess> accesses = {workspace};
  ops.Refine(&accesses);
  EXPECT_EQ(accesses[0], workspace);
}

// PyTorch's _foreach kernels take TensorListMetadata by value with its unused
// address slots uninitialized: stale stack words, pointing anywhere.
TEST(FrameworkOps, StructWordsOutsideAKnownOpsTensorsAreNotPointersItUses) {
  Ops ops;
  const StreamcheckTensorRegion regions[] = {{kSegment, kSegment + 512, 0}, {kSegment + 4096, kSegment + 8192, 1}};
  const auto struct_word = [](Address a) { return MemoryAccess{a, 2048, AccessMode::kUnknown, AccessCertainty::kNone}; };
  const MemoryAccess plain = Guessed(kSegment + 65536, 4096, AccessMode::kRead);
  ops.Begin(kSum, 0, regions, 2);
  ops.AddFreshBlock(kSegment + 16384, 256);  // the op's own workspace
  std::vector<MemoryAccess> accesses = {struct_word(kSegment + 4096), struct_word(kSegment + 32768), plain,
                                        struct_word(kSegment + 16384)};
  ops.Refine(&accesses);
  ASSERT_EQ(accesses.size(), 3u);
  EXPECT_EQ(accesses[0], At(kSegment + 4096, 4096, AccessMode::kWrite));
  EXPECT_EQ(accesses[1], plain);  // a pointer parameter is the kernel's for certain
  EXPECT_EQ(accesses[2], At(kSegment + 16384, 256, AccessMode::kWrite));
  ops.End();
  // No op, or an op whose tensors are not known: nothing to tell a stale word by.
  accesses = {struct_word(kSegment + 32768)};
  ops.Refine(&accesses);
  EXPECT_EQ(accesses.size(), 1u);
  ops.Begin(kNormal, 0, nullptr, 0);
  ops.AddFreshBlock(kSegment + 16384, 256);  // memory it allocated does not make its tensors known
  ops.Refine(&accesses);
  EXPECT_EQ(accesses.size(), 1u);
}

TEST(AllocationBounds, PoolBlocksBoundPointersInsideTheirSegment) {
  AllocationBounds b;
  b.Add(kSegment, kSegmentSize, MemoryKind::kDevice);
  b.AddPoolBlock(kSegment, 512);
  b.AddPoolBlock(kSegment + 512, 1024);
  EXPECT_EQ(b.ExtentOf(kSegment, AccessMode::kRead), Guessed(kSegment, 512, AccessMode::kRead));
  EXPECT_EQ(b.ExtentOf(kSegment + 512, AccessMode::kRead), Guessed(kSegment + 512, 1024, AccessMode::kRead));
  b.RemovePoolBlock(kSegment);
  EXPECT_FALSE(b.HasPoolBlock(kSegment));
  EXPECT_TRUE(b.HasPoolBlock(kSegment + 512));
  // A stale pointer into the freed block is no tensor's: not an access.
  EXPECT_FALSE(b.Contains(kSegment));
  EXPECT_FALSE(b.Contains(kSegment + 4096));
  b.AddPoolBlock(kSegment, 256);  // a new tenant
  EXPECT_EQ(b.ExtentOf(kSegment, AccessMode::kWrite), Guessed(kSegment, 256, AccessMode::kWrite));
}

TEST(AllocationBounds, PoolBlocksOfUnknownSegmentsCount) {
  AllocationBounds b;  // PyTorch's expandable segments are mapped with cuMemMap, not cudaMalloc
  b.AddPoolBlock(kSegment, 512);
  EXPECT_TRUE(b.Contains(kSegment + 100));
  EXPECT_FALSE(b.Contains(kSegment + 512));
}

TEST(AllocationBounds, SegmentsWithoutPoolBlocksKeepThePolicy) {
  AllocationBounds b;
  b.Add(kSegment, kSegmentSize, MemoryKind::kDevice);
  EXPECT_TRUE(b.Contains(kSegment + 4096));
}

}  // namespace
}  // namespace streamcheck::tracer
