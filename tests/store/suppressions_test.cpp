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

TEST(Suppressions, AKeyGivenTwiceIsAnErrorWithItsLine) {
  std::string error;
  EXPECT_FALSE(SuppressionList::Parse("# x\ncross-stream-race kernel=A kernel=B -- which?\n", "s.supp", &error));
  EXPECT_NE(error.find("s.supp:2: 'kernel' given twice"), std::string::npos) << error;
  EXPECT_FALSE(SuppressionList::Parse("* file=a file=a -- x\n", "s.supp", &error));
  EXPECT_NE(error.find("'file' given twice"), std::string::npos) << error;
}

// The index tries only some lines: the first line that matches must be the
// one trying every line in order finds, for names and patterns of every shape.
TEST(Suppressions, TheIndexFindsTheFirstMatchingLineAsTryingEachWould) {
  const std::vector<std::string> names = {"sum_kernel", "gemm_fp16", "aten::sum", "/src/third_party/cub/x.cuh",
                                          "model.py", "main", "ampere_sgemm", "k", ""};
  const std::vector<std::string> patterns = {"sum_kernel", "sum_*", "*_kernel", "*third_party*", "*",  "?",
                                             "a*n*m",      "*.py", "gemm?fp16", "*sum*",         "k*", "*e*_*"};
  std::string text;
  std::vector<Suppression> lines;
  int n = 0;
  for (const std::string& rule : {std::string("*"), std::string("cross-stream-race"), std::string("use-after-free")})
    for (const char* key : {"kernel", "function", "file"})
      for (const std::string& pattern : patterns) {
        text += rule + " " + key + "=" + pattern + (n % 2 == 0 && std::string(key) == "kernel" ? " function=m*" : "") + " -- " + std::to_string(n) + "\n";
        ++n;
      }
  text += "use-after-free -- every finding of the rule\n";
  const SuppressionList list = ParseOk(text);
  auto first_by_trying_each = [&](const Finding& f) -> const Suppression* {
    for (const Suppression& s : list.entries()) {
      if (s.rule != "*" && s.rule != f.rule) continue;
      SuppressionList one = ParseOk(s.rule + (s.kernel.empty() ? "" : " kernel=" + s.kernel) +
                                    (s.function.empty() ? "" : " function=" + s.function) +
                                    (s.file.empty() ? "" : " file=" + s.file) + " -- x\n");
      if (one.Suppressed(f)) return &s;
    }
    return nullptr;
  };
  for (const char* rule : {"cross-stream-race", "use-after-free", "host-device-race"})
    for (const std::string& op : names)
      for (const std::string& place : names) {
        Finding f = RaceFinding();
        f.rule = rule;
        f.accesses[1].op = op;
        f.accesses[0].stack = {{place, place, 1, 0, 0}};
        const Suppression* indexed = list.Match(f);
        const Suppression* tried = first_by_trying_each(f);
        EXPECT_EQ(indexed ? indexed->line : 0, tried ? tried->line : 0) << rule << " " << op << " " << place;
      }
}

}  // namespace
}  // namespace streamcheck
