#include "tracer/kernel_access/access_extent.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <random>
#include <set>

namespace streamcheck::tracer {
namespace {

constexpr Address kBase = 0x7f0000000000;
constexpr uint64_t kSize = 4096;

// An extent the policy gives: past its first byte, a guess.
MemoryAccess At(Address a, uint64_t size, AccessMode m = AccessMode::kUnknown) {
  return {a, size, m, AccessCertainty::kFirstByte};
}

// One launch's pointer arguments, each inside a known allocation.
std::vector<MemoryAccess> LaunchExtents(AllocationBounds& b, const std::vector<std::pair<Address, AccessMode>>& args) {
  std::vector<AllocationBounds::Pointer> pointers;
  for (const auto& [addr, mode] : args) {
    pointers.push_back({addr, mode, AccessCertainty::kFirstByte, b.Holder(addr)});
    EXPECT_NE(pointers.back().holder, nullptr) << std::hex << addr;
  }
  std::vector<MemoryAccess> out;
  b.LaunchExtents(pointers, &out);
  return out;
}

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
    const auto ext = LaunchExtents(b, {{kBase + i * 1024, AccessMode::kRead}});
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
  const auto ext = LaunchExtents(b, {{a + 512, AccessMode::kRead}, {c + 512, AccessMode::kUnknown}});
  ASSERT_EQ(ext.size(), 2u);
  EXPECT_EQ(ext[0], At(a + 512, 256, AccessMode::kRead));
  EXPECT_EQ(ext[1], At(c + 512, 256, AccessMode::kUnknown));
}

TEST(AllocationBounds, SiblingPointersIntoOneAllocationBoundEachOther) {
  AllocationBounds b;
  b.Add(kBase, kSize, MemoryKind::kDevice);
  const auto ext = LaunchExtents(b, {{kBase, AccessMode::kRead}, {kBase + 2048, AccessMode::kUnknown}});
  ASSERT_EQ(ext.size(), 2u);
  EXPECT_EQ(ext[0], At(kBase, 2048, AccessMode::kRead));
  // The second pointer has no boundary after it: it takes the first's extent,
  // clamped to the allocation's end.
  EXPECT_EQ(ext[1], At(kBase + 2048, 2048, AccessMode::kUnknown));
}

}  // namespace
}  // namespace streamcheck::tracer

namespace streamcheck::tracer {
namespace {

// Holder() answers most lookups from a hash of bases: it must agree with a
// brute-force search (the pool block holding p, else the allocation holding p
// unless it is a pooled segment) through any history of adds and removes.
TEST(AllocationBounds, HolderAgreesWithABruteForceSearch) {
  std::mt19937_64 rng(7);
  AllocationBounds b;
  std::map<Address, uint64_t> allocations, blocks;
  std::set<Address> pooled;
  auto pick = [&](uint64_t n) { return rng() % n; };
  for (int step = 0; step < 4000; ++step) {
    const Address base = kBase + pick(64) * 0x1000;
    switch (pick(4)) {
      case 0:
        allocations[base] = 0x1000;  // allocations never overlap
        pooled.erase(base);
        b.Add(base, allocations[base], MemoryKind::kDevice);
        break;
      case 1:
        allocations.erase(base);
        pooled.erase(base);
        b.Remove(base);
        break;
      case 2: {
        const Address block = base + pick(8) * 0x200;
        blocks[block] = 0x200 * (1 + pick(2));
        b.AddPoolBlock(block, blocks[block]);
        for (const auto& [a, size] : allocations)
          if (block >= a && block < a + size) pooled.insert(a);
        break;
      }
      default:
        if (!blocks.empty()) {
          auto it = blocks.lower_bound(base);
          if (it == blocks.end()) it = blocks.begin();
          b.RemovePoolBlock(it->first);
          blocks.erase(it);
        }
    }
    // The innermost range holding p, as the policy defines it.
    auto expected = [&](Address p) -> std::optional<Address> {
      auto holding = [&](const std::map<Address, uint64_t>& table) -> std::optional<Address> {
        auto it = table.upper_bound(p);
        if (it == table.begin()) return std::nullopt;
        --it;
        if (p < it->first + it->second) return it->first;
        return std::nullopt;
      };
      if (auto block = holding(blocks)) return block;
      auto allocation = holding(allocations);
      if (allocation && pooled.count(*allocation)) return std::nullopt;
      return allocation;
    };
    for (int probe = 0; probe < 8; ++probe) {
      const Address p = kBase + pick(70) * 0x1000 + (pick(2) ? 0 : pick(8) * 0x200 + pick(3));
      const AllocationBounds::Entry* got = b.Holder(p);
      ASSERT_EQ(got != nullptr, b.Contains(p)) << "fast path differs from Find at step " << step;
      const std::optional<Address> want = expected(p);
      ASSERT_EQ(got != nullptr, want.has_value()) << "step " << step << " p=" << std::hex << p;
      if (got) {
        ASSERT_EQ(got->first, *want) << "step " << step << " p=" << std::hex << p;
      }
    }
  }
}

}  // namespace
}  // namespace streamcheck::tracer
