#include "tracer/debug/debug_flags.h"

#include <gtest/gtest.h>
#include <stdlib.h>

namespace streamcheck::tracer {
namespace {

class DebugFlagTest : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv("STREAMCHECK_DEBUG"); }
};

TEST_F(DebugFlagTest, UnsetMeansOff) {
  unsetenv("STREAMCHECK_DEBUG");
  EXPECT_FALSE(DebugFlag("profile"));
}

TEST_F(DebugFlagTest, MatchesEachListedWord) {
  setenv("STREAMCHECK_DEBUG", "profile,callbacks-only", 1);
  EXPECT_TRUE(DebugFlag("profile"));
  EXPECT_TRUE(DebugFlag("callbacks-only"));
  EXPECT_FALSE(DebugFlag("inline-analysis"));
}

// "launch" (print each decoded launch) is a prefix of another flag's name.
TEST_F(DebugFlagTest, APrefixOfAnotherFlagIsNotThatFlag) {
  setenv("STREAMCHECK_DEBUG", "launch-callbacks-only", 1);
  EXPECT_FALSE(DebugFlag("launch"));
  EXPECT_FALSE(DebugFlag("callbacks-only"));
  EXPECT_TRUE(DebugFlag("launch-callbacks-only"));
  setenv("STREAMCHECK_DEBUG", "profile,launch", 1);
  EXPECT_TRUE(DebugFlag("launch"));
}

}  // namespace
}  // namespace streamcheck::tracer
