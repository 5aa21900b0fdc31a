// AllocationTable against a plain list that applies its rule (a new
// allocation replaces every one it overlaps): addresses that mostly rise, as
// allocators hand them out at start (the append path), with allocations that
// overlap the last one, start at its base, or have no size mixed in.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "runtime/allocation_table.h"

namespace streamcheck {
namespace {

// The table's rule: an entry goes when it starts inside the new range or
// the new base lies inside it. An allocation of no size at the base of one
// that stays is not added (the entry there keeps the base).
void AddToReference(std::vector<Allocation>* reference, const Allocation& a) {
  std::erase_if(*reference, [&](const Allocation& r) {
    return (r.base >= a.base && r.base < a.base + a.size) || (r.base < a.base && r.base + r.size > a.base);
  });
  if (std::any_of(reference->begin(), reference->end(), [&](const Allocation& r) { return r.base == a.base; }))
    return;
  reference->push_back(a);
  std::sort(reference->begin(), reference->end(),
            [](const Allocation& x, const Allocation& y) { return x.base < y.base; });
}

TEST(AllocationTable, RisingAndOverlappingAllocationsMatchAReference) {
  std::mt19937_64 rng(7);
  AllocationTable table;
  std::vector<Allocation> reference;
  Address next = 0x1000;
  for (int step = 0; step < 20000; ++step) {
    Allocation a;
    const uint64_t dice = rng() % 10;
    if (dice < 6 || reference.empty()) {  // past the end of the last one
      a.base = next + (rng() % 3) * 64;
    } else if (dice < 8) {  // at or inside the last one
      const Allocation& last = reference.back();  // sorted: the highest
      a.base = last.base + (last.size > 0 ? rng() % last.size : 0);
    } else {  // anywhere below
      a.base = 0x1000 + rng() % (next - 0x1000 + 1);
    }
    a.size = rng() % 5 == 0 ? 0 : 64 * (1 + rng() % 8);
    a.site = static_cast<uint32_t>(step);
    AddToReference(&reference, a);
    next = std::max(next, a.base + a.size);
    table.Add(a);
    ASSERT_EQ(table.size(), reference.size()) << "step " << step;
  }
  for (const Allocation& r : reference) {
    const Allocation* found = table.Find(r.base);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->base, r.base);
    EXPECT_EQ(found->size, r.size);
    EXPECT_EQ(found->site, r.site);
  }
}

// The allocation of `reference` containing `addr`, as Find defines it.
const Allocation* FindInReference(const std::vector<Allocation>& reference, Address addr) {
  for (const Allocation& r : reference)
    if ((addr >= r.base && addr < r.base + r.size) || (r.size == 0 && addr == r.base)) return &r;
  return nullptr;
}

// Adds anywhere (leaves split in the middle, entries before the first),
// removes (leaves empty and go), finds any address (inside, between and at
// the edges of allocations, across leaves), against the reference; then a
// device's allocations go (cudaDeviceReset).
TEST(AllocationTable, AddRemoveAndFindAnywhereMatchAReference) {
  std::mt19937_64 rng(13);
  AllocationTable table;
  std::vector<Allocation> reference;
  constexpr Address kSpace = 1 << 16;
  for (int step = 0; step < 40000; ++step) {
    const uint64_t dice = rng() % 10;
    if (dice < 5) {
      Allocation a;
      a.base = 0x1000 + (rng() % kSpace) * 16;
      a.size = rng() % 7 == 0 ? 0 : 16 * (1 + rng() % (step % 3 == 0 ? 64 : 4));
      a.device = static_cast<DeviceId>(rng() % 2);
      a.kind = rng() % 4 == 0 ? MemoryKind::kPinnedHost : MemoryKind::kDevice;
      a.site = static_cast<uint32_t>(step);
      AddToReference(&reference, a);
      table.Add(a);
    } else if (dice < 8 && !reference.empty()) {
      // Half the time a live base, else any address (mostly not a base).
      const Address base = rng() % 2 ? reference[rng() % reference.size()].base : 0x1000 + (rng() % kSpace) * 16;
      auto it = std::find_if(reference.begin(), reference.end(), [&](const Allocation& r) { return r.base == base; });
      Allocation removed;
      ASSERT_EQ(table.Remove(base, &removed), it != reference.end()) << "step " << step;
      if (it != reference.end()) {
        EXPECT_EQ(removed.site, it->site);
        reference.erase(it);
      }
    } else {
      const Address addr = 0x1000 + rng() % (kSpace * 16 + 64);
      const Allocation* expected = FindInReference(reference, addr);
      const Allocation* found = table.Find(addr);
      ASSERT_EQ(found != nullptr, expected != nullptr) << "step " << step << " addr " << addr;
      if (found != nullptr) {
        ASSERT_EQ(found->site, expected->site) << "step " << step;
      }
      ASSERT_EQ(table.KindOf(addr), expected ? expected->kind : MemoryKind::kPageableHost);
    }
    ASSERT_EQ(table.size(), reference.size()) << "step " << step;
  }
  EXPECT_GT(reference.size(), 1000u);  // many leaves
  for (const Allocation& r : reference) {
    const Allocation* found = table.Find(r.base + r.size / 2);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->site, r.site);
  }
  std::vector<uint32_t> reset;
  table.RemoveDevice(1, [&](const Allocation& a) { reset.push_back(a.site); });
  std::vector<uint32_t> expected_reset;
  std::erase_if(reference, [&](const Allocation& r) {
    if (r.device != 1 || IsHostMemory(r.kind)) return false;
    expected_reset.push_back(r.site);
    return true;
  });
  EXPECT_EQ(reset, expected_reset);  // by base, as the reference is sorted
  ASSERT_EQ(table.size(), reference.size());
  for (const Allocation& r : reference) EXPECT_EQ(table.Find(r.base)->site, r.site);
}

// Ranges added and removed at random over a small space, against a byte map.
TEST(AddressRanges, AddAndRemoveMatchAByteMap) {
  std::mt19937_64 rng(11);
  AddressRanges ranges;
  constexpr Address kSpace = 512;
  std::vector<bool> covered(kSpace, false);
  for (int step = 0; step < 20000; ++step) {
    const Address begin = rng() % kSpace;
    const uint64_t size = rng() % std::min<uint64_t>(40, kSpace - begin) + 1;
    if (rng() % 3 != 0) {
      ranges.Add(begin, size);
      for (Address a = begin; a < begin + size; ++a) covered[a] = true;
    } else {
      ranges.Remove(begin, size);
      for (Address a = begin; a < begin + size; ++a) covered[a] = false;
    }
    const Address probe = rng() % kSpace;
    const uint64_t probe_size = rng() % std::min<uint64_t>(16, kSpace - probe) + 1;
    bool expected = false;
    for (Address a = probe; a < probe + probe_size; ++a) expected = expected || covered[a];
    ASSERT_EQ(ranges.Overlaps(probe, probe_size), expected) << "step " << step << " probe " << probe << "+" << probe_size;
  }
  EXPECT_FALSE(ranges.Overlaps(0, 0));
}

}  // namespace
}  // namespace streamcheck
