#include "tracer/debug/debug_flags.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <set>
#include <sstream>

namespace streamcheck::tracer {
namespace {

class DebugFlagTest : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv("STREAMCHECK_DEBUG"); }
};

TEST_F(DebugFlagTest, UnsetMeansOff) {
  unsetenv("STREAMCHECK_DEBUG");
  EXPECT_FALSE(DebugFlag(DebugSwitch::kProfile));
}

TEST_F(DebugFlagTest, MatchesEachListedWord) {
  setenv("STREAMCHECK_DEBUG", "profile,callbacks-only", 1);
  EXPECT_TRUE(DebugFlag(DebugSwitch::kProfile));
  EXPECT_TRUE(DebugFlag(DebugSwitch::kCallbacksOnly));
  EXPECT_FALSE(DebugFlag(DebugSwitch::kInlineAnalysis));
}

// "launch" (print each decoded launch) is a prefix of another switch's name.
TEST_F(DebugFlagTest, APrefixOfAnotherSwitchIsNotThatSwitch) {
  setenv("STREAMCHECK_DEBUG", "launch-callbacks-only", 1);
  EXPECT_FALSE(DebugFlag(DebugSwitch::kLaunch));
  EXPECT_FALSE(DebugFlag(DebugSwitch::kCallbacksOnly));
  EXPECT_TRUE(DebugFlag(DebugSwitch::kLaunchCallbacksOnly));
  setenv("STREAMCHECK_DEBUG", "profile,launch", 1);
  EXPECT_TRUE(DebugFlag(DebugSwitch::kLaunch));
}

TEST(DebugSwitches, EveryNameIsFoundAloneAndAmongOthers) {
  for (const DebugSwitchInfo& info : kDebugSwitches) {
    EXPECT_TRUE(DebugSwitchListed(info.name, info.id)) << info.name;
    EXPECT_TRUE(DebugSwitchListed("x," + std::string(info.name) + ",y", info.id)) << info.name;
    for (const DebugSwitchInfo& other : kDebugSwitches) {
      if (other.id == info.id) continue;
      EXPECT_FALSE(DebugSwitchListed(other.name, info.id)) << info.name << " in " << other.name;
    }
  }
}

TEST(DebugSwitches, NamesAreUniqueAndTheTableIsInEnumOrder) {
  std::set<std::string_view> names;
  for (size_t i = 0; i < std::size(kDebugSwitches); ++i) {
    EXPECT_EQ(static_cast<size_t>(kDebugSwitches[i].id), i);
    EXPECT_TRUE(names.insert(kDebugSwitches[i].name).second) << kDebugSwitches[i].name;
    EXPECT_FALSE(kDebugSwitches[i].meaning.empty()) << kDebugSwitches[i].name;
  }
}

TEST(DebugSwitches, UnknownWordsAreNamedEmptyOnesIgnored) {
  EXPECT_TRUE(UnknownDebugSwitches("").empty());
  EXPECT_TRUE(UnknownDebugSwitches("profile,,launch").empty());
  EXPECT_EQ(UnknownDebugSwitches("profil,launch,timing"), (std::vector<std::string>{"profil", "timing"}));
}

// The table says where each switch is read: that file must read it, so the
// list cannot keep a switch nothing reads any more.
TEST(DebugSwitches, EachIsReadInTheFileTheTableNames) {
  for (const DebugSwitchInfo& info : kDebugSwitches) {
    std::ifstream in(std::string(STREAMCHECK_SOURCE_DIR) + "/" + std::string(info.read_in));
    ASSERT_TRUE(in) << info.read_in;
    std::stringstream text;
    text << in.rdbuf();
    const std::string name = "DebugSwitch::" + [&] {
      switch (info.id) {
#define STREAMCHECK_DEBUG_SWITCH(id, name, meaning, read_in) \
  case DebugSwitch::id:                                      \
    return std::string(#id);
#include "tracer/debug/debug_switches.def"
#undef STREAMCHECK_DEBUG_SWITCH
      }
      return std::string();
    }();
    EXPECT_NE(text.str().find(name), std::string::npos) << info.read_in << " does not read " << name;
  }
}

}  // namespace
}  // namespace streamcheck::tracer
