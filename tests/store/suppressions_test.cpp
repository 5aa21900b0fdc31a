#include "store/suppressions.h"

#include <gtest/gtest.h>

#include "tests/store/store_fixtures.h"

namespace streamcheck {
namespace {

using testing::RaceFinding;

SuppressionList ParseOk(std::string_view text) {
  std::string error;
  auto list = SuppressionList::Parse(text, "test.supp", &error);
  EXPECT_TRUE(list) << error;
  return list ? *list : SuppressionList();
}

TEST(Glob, MatchesLikeAShell) {
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("*gemm*", "ampere_sgemm_128x64"));
  EXPECT_TRUE(GlobMatch("*/third_party/*", "/src/third_party/cub/x.cuh"));
  EXPECT_TRUE(GlobMatch("model.?y", "model.py"));
  EXPECT_FALSE(GlobMatch("*gemm", "gemm_kernel"));
  EXPECT_FALSE(GlobMatch("model.py", "model.pyc"));
  EXPECT_TRUE(GlobMatch("a*b*c", "aXbYbZc"));
}

TEST(Suppressions, RuleAndPatternsMustAllMatch) {
  SuppressionList list = ParseOk(
      "# comments and blank lines are ignored\n"
      "\n"
      "cross-stream-race kernel=sum_* file=*.py -- reviewed: ordered by the caller\n");
  ASSERT_EQ(list.entries().size(), 1u);
  EXPECT_EQ(list.entries()[0].reason, "reviewed: ordered by the caller");
  EXPECT_EQ(list.entries()[0].line, 3);
  Finding f = RaceFinding();
  EXPECT_TRUE(list.Suppressed(f));
  f.rule = "use-after-free";
  EXPECT_FALSE(list.Suppressed(f));
  f = RaceFinding();
  f.accesses[1].op = "mean_kernel";
  EXPECT_FALSE(list.Suppressed(f));
}

TEST(Suppressions, KernelMatchesFrameworkOpsAndFunctionMatchesAnyFrame) {
  Finding f = RaceFinding();
  EXPECT_TRUE(ParseOk("* kernel=aten::normal_ -- x\n").Suppressed(f));
  EXPECT_TRUE(ParseOk("* function=make_input -- x\n").Suppressed(f));
  EXPECT_FALSE(ParseOk("* function=train_step -- x\n").Suppressed(f));
  EXPECT_FALSE(ParseOk("* file=*/vendor/* -- x\n").Suppressed(f));
}

TEST(Suppressions, ErrorsNameTheLine) {
  std::string error;
  EXPECT_FALSE(SuppressionList::Parse("\ncross-stream-race kernel=x\n", "s.supp", &error));
  EXPECT_NE(error.find("s.supp:2:"), std::string::npos) << error;
  EXPECT_NE(error.find("reason"), std::string::npos) << error;
  EXPECT_FALSE(SuppressionList::Parse("cross-stream-race colour=red -- x\n", "s", &error));
  EXPECT_NE(error.find("unknown key"), std::string::npos) << error;
  EXPECT_FALSE(SuppressionList::Parse("cross-stream-rcae -- typo\n", "s", &error));
  EXPECT_NE(error.find("unknown rule"), std::string::npos) << error;
  EXPECT_FALSE(SuppressionList::Parse("* kernel= -- x\n", "s", &error));
}

TEST(Suppressions, LoadReportsAMissingFile) {
  std::string error;
  EXPECT_FALSE(SuppressionList::Load("/nonexistent/streamcheck.supp", &error));
  EXPECT_NE(error.find("/nonexistent/streamcheck.supp"), std::string::npos);
}

}  // namespace
}  // namespace streamcheck
