// AddressMap against std::unordered_map: random inserts, replacements,
// erases and lookups (present and absent), with keys that share home slots
// so that clusters form, wrap around the table's end, and shift on erase.
#include <gtest/gtest.h>

#include <random>
#include <unordered_map>
#include <vector>

#include "runtime/address_map.h"

namespace streamcheck {
namespace {

void CheckAgainstReference(uint64_t seed, uint64_t key_space, uint64_t stride) {
  std::mt19937_64 rng(seed);
  AddressMap<uint64_t> map;
  std::unordered_map<Address, uint64_t> reference;
  for (int step = 0; step < 200000; ++step) {
    const Address key = (rng() % key_space) * stride;
    const uint64_t op = rng() % 10;
    if (op < 5) {
      map.Set(key, step);
      reference[key] = step;
    } else if (op < 8) {
      map.Erase(key);
      reference.erase(key);
    } else {
      const uint64_t* found = map.Find(key);
      auto it = reference.find(key);
      ASSERT_EQ(found != nullptr, it != reference.end()) << "seed " << seed << " step " << step;
      if (found) {
        ASSERT_EQ(*found, it->second) << "seed " << seed << " step " << step;
      }
    }
    ASSERT_EQ(map.size(), reference.size());
  }
  for (const auto& [key, value] : reference) {
    const uint64_t* found = map.Find(key);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(*found, value);
  }
}

TEST(AddressMap, MatchesAReferenceMap) {
  // Dense small keys, buffer-like strides, and a key space that keeps the
  // table near its highest load.
  CheckAgainstReference(1, 3000, 1);
  CheckAgainstReference(2, 50000, 65536);
  CheckAgainstReference(3, 1600, 256);
}

TEST(AddressMap, ValuesSurviveGrowthAndShifts) {
  AddressMap<std::vector<int>> map;  // a value that owns memory, moved on every shift
  for (Address k = 0; k < 5000; ++k) map.Set(k * 64, std::vector<int>(3, static_cast<int>(k)));
  for (Address k = 0; k < 5000; k += 2) map.Erase(k * 64);
  for (Address k = 1; k < 5000; k += 2) {
    const std::vector<int>* v = map.Find(k * 64);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(*v, std::vector<int>(3, static_cast<int>(k)));
  }
  EXPECT_EQ(map.Find(0), nullptr);
  EXPECT_EQ(map.size(), 2500u);
}

}  // namespace
}  // namespace streamcheck
