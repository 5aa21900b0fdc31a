// VectorClock::Join, four lanes at a time, against the lane-wise maximum
// one lane at a time: every width (the tail past a multiple of four) and
// clocks past 2^31, where a signed comparison would get it wrong.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "runtime/vector_clock.h"

namespace streamcheck::testing {
namespace {

TEST(VectorClock, JoinTakesTheLaneWiseMaximumAtAnyWidth) {
  std::mt19937 rng(7);
  const Clock kValues[] = {0, 1, 2, 0x7fffffff, 0x80000000u, 0x80000001u, 0xfffffffeu, 0xffffffffu};
  for (int round = 0; round < 2000; ++round) {
    const size_t mine_width = rng() % 23, their_width = rng() % 23;
    VectorClock mine, theirs;
    std::vector<Clock> expected(std::max(mine_width, their_width), 0);
    for (size_t i = 0; i < mine_width; ++i) {
      const Clock c = rng() % 2 ? kValues[rng() % 8] : rng();
      mine.Set(static_cast<Lane>(i), c);
      expected[i] = c;
    }
    for (size_t i = 0; i < their_width; ++i) {
      const Clock c = rng() % 2 ? kValues[rng() % 8] : rng();
      theirs.Set(static_cast<Lane>(i), c);
      expected[i] = std::max(expected[i], c);
    }
    mine.Join(theirs);
    ASSERT_EQ(mine.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(mine.Get(static_cast<Lane>(i)), expected[i]) << round;
  }
}

}  // namespace
}  // namespace streamcheck::testing
