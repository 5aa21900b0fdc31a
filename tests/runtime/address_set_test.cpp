// AddressSet (the shadow's ordered interval starts) against std::set, which
// it replaced: random inserts and erases in clusters (leaves filling,
// splitting, emptying and joining), every bound and a walk both ways after
// each step.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "runtime/address_set.h"

namespace streamcheck::testing {
namespace {

void ExpectSame(const AddressSet& got, const std::set<Address>& want, std::mt19937_64& rng, int step) {
  ASSERT_EQ(got.size(), want.size()) << step;
  ASSERT_EQ(got.empty(), want.empty()) << step;
  if (!want.empty()) {
    ASSERT_EQ(got.back(), *want.rbegin()) << step;
  }
  // The walk forward, and back from end().
  auto w = want.begin();
  for (auto it = got.begin(); it != got.end(); ++it, ++w) ASSERT_EQ(*it, *w) << step;
  ASSERT_TRUE(w == want.end()) << step;
  auto back = got.end();
  for (auto r = want.rbegin(); r != want.rend(); ++r) ASSERT_EQ(*--back, *r) << step;
  ASSERT_TRUE(back == got.begin()) << step;
  // Bounds of keys in the set, beside them and past both ends.
  for (int probe = 0; probe < 16; ++probe) {
    Address key = rng() % 5000;
    if (!want.empty() && probe % 2) {
      auto at = want.begin();
      std::advance(at, rng() % want.size());
      key = *at + (rng() % 3) - 1;
    }
    auto lower = got.LowerBound(key);
    auto lower_want = want.lower_bound(key);
    if (lower_want == want.end()) ASSERT_TRUE(lower == got.end()) << step << " " << key;
    else ASSERT_EQ(*lower, *lower_want) << step << " " << key;
    if (lower != got.begin()) {
      --lower, --lower_want;
      ASSERT_EQ(*lower, *lower_want) << step << " " << key;
    }
    auto upper = got.UpperBound(key);
    auto upper_want = want.upper_bound(key);
    if (upper_want == want.end()) ASSERT_TRUE(upper == got.end()) << step << " " << key;
    else ASSERT_EQ(*upper, *upper_want) << step << " " << key;
  }
}

TEST(AddressSet, MatchesStdSetOnRandomInsertsAndErases) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 20; ++round) {
    AddressSet got;
    std::set<Address> want;
    // Grow past many leaves, then shrink to nothing, then grow again.
    const int steps = 6000;
    for (int step = 0; step < steps; ++step) {
      const bool growing = step < steps / 3 || step > 2 * steps / 3;
      const int insert_percent = growing ? 70 : 25;
      // Keys in a narrow range now and then: runs of neighbours, as carving makes.
      const Address span = rng() % 4 ? 5000 : 200;
      const Address key = rng() % span;
      if (int(rng() % 100) < insert_percent) {
        ASSERT_EQ(got.Insert(key), want.insert(key).second) << step;
      } else {
        Address erase = key;
        if (!want.empty() && rng() % 2) {
          auto at = want.begin();
          std::advance(at, rng() % want.size());
          erase = *at;
        }
        ASSERT_EQ(got.Erase(erase), want.erase(erase) == 1) << step;
      }
      if (step % 7 == 0 || want.size() < 4) ExpectSame(got, want, rng, step);
    }
    ExpectSame(got, want, rng, steps);
  }
}

TEST(AddressSet, RisingAndFallingKeysKeepLeavesFilled) {
  AddressSet set;
  for (Address k = 0; k < 100000; ++k) set.Insert(k * 16);
  const size_t full = set.HeapBytes();
  for (Address k = 100000; k-- > 0;) set.Insert(k * 16 + 8);
  EXPECT_EQ(set.size(), 200000u);
  // Every other key erased: the leaves thin but do not outnumber the keys' need by far.
  for (Address k = 0; k < 200000; k += 2) set.Erase(k * 8);
  EXPECT_EQ(set.size(), 100000u);
  EXPECT_LT(set.HeapBytes(), 4 * full);
  for (Address k = 0; k < 200000; ++k) set.Erase(k * 8);
  EXPECT_TRUE(set.empty());
  EXPECT_TRUE(set.begin() == set.end());
}

}  // namespace
}  // namespace streamcheck::testing
