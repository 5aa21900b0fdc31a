// cli/lint_files.h: how `streamcheck lint` tells files from options, which
// files --changed-since takes from git, and which of them can be linted.
#include "cli/lint_files.h"

#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>
#include <regex>

#include "tests/common/run_command.h"
#include "tests/common/temp_dir.h"

namespace streamcheck::cli {
namespace {

namespace fs = std::filesystem;

// A folder to write files and run git in.
class Repository : public testing::TempDir {
 public:
  void Write(const std::string& name, const std::string& text = "int x;\n") const {
    fs::create_directories((path() / name).parent_path());
    std::ofstream(path() / name) << text;
  }
  int Git(const std::string& args) const {
    return testing::RunCommand("git -C " + str() + " -c user.name=t -c user.email=t@t " + args + " >/dev/null 2>&1")
        .exit_code;
  }
};

TEST(LintArguments, FilesAreWhatNoOptionTakes) {
  LintArguments a;
  std::string error;
  ASSERT_TRUE(SplitLintArguments({"-p", "build", "--db", "f.db", "-j2", "a.cu", "--format=sarif", "--changed-since",
                                  "origin/main", "--skip-unlisted", "b.cpp", "--", "-DX", "c.cu"},
                                 &a, &error));
  EXPECT_EQ(a.build_dir, "build");
  EXPECT_EQ(a.changed_since, "origin/main");
  EXPECT_TRUE(a.skip_unlisted);
  EXPECT_EQ(a.files, (std::vector<std::string>{"a.cu", "b.cpp"}));
  EXPECT_EQ(a.options, (std::vector<std::string>{"-p", "build", "--db", "f.db", "-j2", "--format", "sarif"}));
  EXPECT_EQ(a.flags, (std::vector<std::string>{"--", "-DX", "c.cu"}));
  LintArguments b;
  ASSERT_TRUE(SplitLintArguments({"-p=out", "--changed-since=HEAD~2"}, &b, &error));
  EXPECT_EQ(b.build_dir, "out");
  EXPECT_EQ(b.changed_since, "HEAD~2");
  LintArguments c;
  EXPECT_FALSE(SplitLintArguments({"--changed-since"}, &c, &error));
  EXPECT_NE(error.find("needs a revision"), std::string::npos);
}

// Every option streamcheck-lint's usage shows with a value is one the
// command knows takes one: else its value would be taken for a file.
TEST(LintArguments, KnowsEveryOptionOfTheLintThatTakesAValue) {
#ifndef STREAMCHECK_LINT_BINARY
  GTEST_SKIP() << "streamcheck-lint is not built";
#else
  const testing::CommandResult help = testing::RunCommand(std::string(STREAMCHECK_LINT_BINARY) + " --help");
  ASSERT_EQ(help.exit_code, 0);
  const std::regex with_value("\n  (-[-a-z]*[a-z]) [A-Z_]+");  // not "-- FLAGS"
  int seen = 0;
  for (std::sregex_iterator it(help.output.begin(), help.output.end(), with_value), end; it != end; ++it, ++seen) {
    const std::vector<std::string>& known = LintOptionsWithValue();
    EXPECT_NE(std::find(known.begin(), known.end(), (*it)[1].str()), known.end()) << (*it)[1].str();
  }
  EXPECT_GE(seen, 8);
#endif
}

TEST(LintableFiles, WithoutADatabaseCudaAndCppSources) {
  std::vector<std::string> lintable, skipped;
  std::string error;
  ASSERT_TRUE(LintableFiles({"a.cu", "b.cuh", "c.cpp", "d.h", "e.cc", "README.md"}, "", &lintable, &skipped, &error));
  EXPECT_EQ(lintable, (std::vector<std::string>{"a.cu", "c.cpp", "e.cc"}));
  EXPECT_EQ(skipped, (std::vector<std::string>{"b.cuh", "d.h", "README.md"}));
}

TEST(LintableFiles, WithADatabaseThoseItHasACommandFor) {
  Repository dir;
  const std::string a = (dir.path() / "src" / "a.cu").string();
  dir.Write("build/compile_commands.json", "[{\"directory\": \"" + dir.path().string() + "\", \"file\": \"" + a +
                                               "\", \"command\": \"nvcc -c " + a + "\"}]");
  std::vector<std::string> lintable, skipped;
  std::string error;
#if STREAMCHECK_HAVE_COMPILE_DB
  ASSERT_TRUE(LintableFiles({a, (dir.path() / "src" / "a.cuh").string()}, (dir.path() / "build").string(), &lintable,
                            &skipped, &error))
      << error;
  EXPECT_EQ(lintable, (std::vector<std::string>{a}));
  EXPECT_EQ(skipped.size(), 1u);
  EXPECT_FALSE(LintableFiles({a}, (dir.path() / "nowhere").string(), &lintable, &skipped, &error));
  EXPECT_NE(error.find("cannot read the compile database"), std::string::npos) << error;
#endif
}

TEST(ChangedFiles, SinceTheMergeBaseCommittedOrNotUntrackedTooDeletedNot) {
  Repository dir;
  ASSERT_EQ(dir.Git("init -q -b main"), 0);
  dir.Write("kept.cu");
  dir.Write("changed.cu");
  dir.Write("deleted.cu");
  dir.Write(".gitignore", "ignored.cu\n");
  ASSERT_EQ(dir.Git("add -A"), 0);
  ASSERT_EQ(dir.Git("commit -q -m base"), 0);
  ASSERT_EQ(dir.Git("checkout -q -b topic"), 0);
  dir.Write("committed.cu");
  ASSERT_EQ(dir.Git("add committed.cu"), 0);
  ASSERT_EQ(dir.Git("commit -q -m topic"), 0);
  // main moves on: its own changes are not the branch's.
  ASSERT_EQ(dir.Git("checkout -q main"), 0);
  dir.Write("on_main.cu");
  ASSERT_EQ(dir.Git("add on_main.cu"), 0);
  ASSERT_EQ(dir.Git("commit -q -m main"), 0);
  ASSERT_EQ(dir.Git("checkout -q topic"), 0);
  dir.Write("changed.cu", "int changed;\n");
  dir.Write("sub dir/new file.cu");
  dir.Write("ignored.cu");
  fs::remove(dir.path() / "deleted.cu");
  const fs::path saved = fs::current_path();
  fs::current_path(dir.path() / "sub dir");  // from a subfolder too
  std::vector<std::string> files;
  std::string error;
  const bool ok = ChangedFiles("main", &files, &error);
  std::vector<std::string> unknown;
  const bool bad_rev = ChangedFiles("no-such-branch", &unknown, &error);
  fs::current_path(saved);
  ASSERT_TRUE(ok) << error;
  const std::string top = fs::canonical(dir.path()).string();
  EXPECT_EQ(files, (std::vector<std::string>{top + "/changed.cu", top + "/committed.cu", top + "/sub dir/new file.cu"}));
  EXPECT_FALSE(bad_rev);
  EXPECT_NE(error.find("no-such-branch"), std::string::npos) << error;
}

}  // namespace
}  // namespace streamcheck::cli
