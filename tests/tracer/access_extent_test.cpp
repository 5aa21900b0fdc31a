#include "tracer/access_extent.h"

#include <gtest/gtest.h>

namespace streamcheck::tracer {
namespace {

constexpr Address kBase = 0x7f0000000000;
constexpr uint64_t kSize = 4096;

MemoryAccess At(Address a, uint64_t size, AccessMode m = AccessMode::kUnknown) { return {a, size, m}; }

TEST(AllocationBounds, BasePointerCoversTheWholeAllocation) {
  AllocationBounds b;
  b.Add(kBase, kSize, MemoryKind::kDevice);
  EXPECT_EQ(b.ExtentOf(kBase, AccessMode::kRead), At(kBase, kSize, AccessMode::kRead));
}

TEST(AllocationBounds, InteriorPointerWithoutBoundaryCoversOneByte) {
  AllocationBounds b;
  b.Add(kBase, kSize, MemoryKind::kDevice);
  EXPECT_EQ(b.ExtentOf(kBase + 100, AccessMode::kUnknown).size, 1u);
}

TEST(AllocationBounds, PointersOutsideAllocationsHaveNoExtent) {
  AllocationBounds b;
  b.Add(kBase, kSize, MemoryKind::kDevice);
  EXPECT_FALSE(b.Contains(kBase + kSize));
  EXPECT_FALSE(b.Contains(kBase - 1));
  EXPECT_EQ(b.ExtentOf(kBase + kSize, AccessMode::kRead).size, 0u);
  b.Remove(kBase);
  EXPECT_FALSE(b.Contains(kBase));
}

TEST(AllocationBounds, CopyBoundsCutTheExtent) {
  AllocationBounds b;
  b.Add(kBase, kSize, MemoryKind::kDevice);
  b.NoteRangeEnd(kBase + 1024);  // e.g. a copy into [base, base+1024)
  EXPECT_EQ(b.ExtentOf(kBase, AccessMode::kRead).size, 1024u);
  bool bounded = false;
  EXPECT_EQ(b.ExtentOf(kBase + 1024, AccessMode::kRead, &bounded).size, 1u);
  EXPECT_FALSE(bounded);
}

// The programming guide's per-stream chunks: copies bound each chunk, and the
// kernels' pointers fall on the chunk starts, so chunks never overlap.
TEST(AllocationBounds, PerStreamChunksStayDisjoint) {
  AllocationBounds b;
  b.Add(kBase, kSize, MemoryKind::kDevice);
  for (int i = 0; i < 4; ++i) {  // copies into each chunk
    b.NoteBoundary(kBase + i * 1024);
    b.NoteRangeEnd(kBase + (i + 1) * 1024);
  }
  for (int i = 0; i < 4; ++i) {
    const auto ext = b.LaunchExtents({{kBase + i * 1024, AccessMode::kRead}});
    ASSERT_EQ(ext.size(), 1u);
    EXPECT_EQ(ext[0], At(kBase + i * 1024, 1024, AccessMode::kRead));
  }
}

// Allocations often sit back to back: the start of the next one is no
// boundary of this one.
TEST(AllocationBounds, NextAllocationsStartDoesNotBoundThisOne) {
  AllocationBounds b;
  b.Add(kBase, kSize, MemoryKind::kDevice);
  b.Add(kBase + kSize, kSize, MemoryKind::kPinnedHost);
  b.NoteBoundary(kBase + kSize);  // a copy from the start of the second
  b.NoteRangeEnd(kBase + kSize + 100);
  bool bounded = true;
  EXPECT_EQ(b.ExtentOf(kBase, AccessMode::kRead, &bounded).size, kSize);
  EXPECT_FALSE(bounded);
}

TEST(AllocationBounds, UnboundedArgumentTakesItsSiblingsExtent) {
  AllocationBounds in, out;
  AllocationBounds b;
  const Address a = kBase, c = kBase + 0x100000;
  b.Add(a, kSize, MemoryKind::kDevice);
  b.Add(c, kSize, MemoryKind::kDevice);
  b.NoteBoundary(a + 512);
  b.NoteRangeEnd(a + 768);  // a copy filled [a+512, a+768)
  const auto ext = b.LaunchExtents({{a + 512, AccessMode::kRead}, {c + 512, AccessMode::kUnknown}});
  ASSERT_EQ(ext.size(), 2u);
  EXPECT_EQ(ext[0], At(a + 512, 256, AccessMode::kRead));
  EXPECT_EQ(ext[1], At(c + 512, 256, AccessMode::kUnknown));
}

TEST(AllocationBounds, SiblingPointersIntoOneAllocationBoundEachOther) {
  AllocationBounds b;
  b.Add(kBase, kSize, MemoryKind::kDevice);
  const auto ext = b.LaunchExtents({{kBase, AccessMode::kRead}, {kBase + 2048, AccessMode::kUnknown}});
  ASSERT_EQ(ext.size(), 2u);
  EXPECT_EQ(ext[0], At(kBase, 2048, AccessMode::kRead));
  // The second pointer has no boundary after it: it takes the first's extent,
  // clamped to the allocation's end.
  EXPECT_EQ(ext[1], At(kBase + 2048, 2048, AccessMode::kUnknown));
}

}  // namespace
}  // namespace streamcheck::tracer
