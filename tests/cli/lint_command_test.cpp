// What `streamcheck lint` adds to streamcheck-lint (cli/cmd_lint.cpp):
// --changed-since in a git repository, --skip-unlisted as the pre-commit
// hook passes files, and GitLab's code quality report (--format codeclimate,
// and `report --format codeclimate` of a replayed trace), held to the fields
// GitLab documents: description, check_name, fingerprint, severity,
// location.path, location.lines.begin.
#include <gtest/gtest.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "tests/common/run_command.h"
#include "tests/common/temp_dir.h"

namespace streamcheck {
namespace {

namespace fs = std::filesystem;
using Result = testing::CommandResult;

const std::string kExamples = std::string(STREAMCHECK_SOURCE_DIR) + "/testdata/examples";

Result Shell(const std::string& command) { return testing::RunCommand(command); }
std::string Binary() { return STREAMCHECK_BINARY; }
bool LintBuilt() { return fs::exists(fs::path(STREAMCHECK_BINARY_DIR) / "analyzer" / "streamcheck-lint"); }

using testing::TempDir;

// Each issue has what GitLab reads, of the types its schema gives.
void ExpectGitLabIssues(const nlohmann::json& issues, const std::string& path_suffix) {
  ASSERT_TRUE(issues.is_array());
  ASSERT_FALSE(issues.empty());
  std::set<std::string> fingerprints;
  for (const nlohmann::json& issue : issues) {
    ASSERT_TRUE(issue["description"].is_string() && !issue["description"].get<std::string>().empty()) << issue;
    ASSERT_TRUE(issue["check_name"].is_string()) << issue;
    ASSERT_TRUE(issue["fingerprint"].is_string()) << issue;
    EXPECT_TRUE(fingerprints.insert(issue["fingerprint"].get<std::string>()).second) << "fingerprints are unique";
    const std::set<std::string> severities = {"info", "minor", "major", "critical", "blocker"};
    EXPECT_TRUE(severities.count(issue["severity"].get<std::string>())) << issue["severity"];
    ASSERT_TRUE(issue["location"]["path"].is_string()) << issue;
    ASSERT_TRUE(issue["location"]["lines"]["begin"].is_number_integer()) << issue;
    EXPECT_GE(issue["location"]["lines"]["begin"].get<int>(), 1);
    if (!path_suffix.empty()) EXPECT_EQ(issue["location"]["path"], path_suffix) << issue;
  }
}

TEST(CodeClimate, AReplayedRunsFindingsAsGitLabIssues) {
  TempDir dir;
  ASSERT_LE(Shell(Binary() + " replay -q --db " + (dir / "f.db") + " " + kExamples + "/two_streams.trace.txt").exit_code, 1);
  const Result report = Shell(Binary() + " report --format codeclimate " + (dir / "f.db"));
  ASSERT_EQ(report.exit_code, 0);
  ExpectGitLabIssues(nlohmann::json::parse(report.output), "");
}

TEST(CodeClimate, TheLintsFindingsWithPathsRelativeToTheWorkingDirectory) {
  if (!LintBuilt()) GTEST_SKIP() << "streamcheck-lint is not built";
  // Run from the source tree's root, as CI does: paths relative to it.
  const Result lint = Shell("cd " + std::string(STREAMCHECK_SOURCE_DIR) + " && " + Binary() +
                          " lint --format codeclimate testdata/examples/two_streams.cu 2>/dev/null");
  EXPECT_EQ(lint.exit_code, 1) << "findings";
  ExpectGitLabIssues(nlohmann::json::parse(lint.output), "testdata/examples/two_streams.cu");
  const Result clean = Shell(Binary() + " lint --format=codeclimate " + kExamples + "/two_streams_fixed.cu 2>/dev/null");
  EXPECT_EQ(clean.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(clean.output), nlohmann::json::array());
  // Nothing to lint is a report too (GitLab reads the file whatever the job found).
  const Result none = Shell(Binary() + " lint --format codeclimate --skip-unlisted " + kExamples +
                            "/pytorch_normal_sum.trace.txt 2>/dev/null");
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(none.output), nlohmann::json::array());
}

// GitLab compares a merge request's issues with the target branch's by
// fingerprint: two checkouts in different folders give the same ones.
TEST(CodeClimate, FingerprintsDoNotDependOnWhereTheRepositoryIsCheckedOut) {
  if (!LintBuilt()) GTEST_SKIP() << "streamcheck-lint is not built";
  std::vector<std::string> fingerprints[2];
  for (auto& found : fingerprints) {
    TempDir checkout;
    fs::copy_file(kExamples + "/two_streams.cu", checkout / "two_streams.cu");
    const Result lint = Shell("cd " + checkout.str() + " && " + Binary() +
                              " lint --format codeclimate two_streams.cu 2>/dev/null");
    for (const nlohmann::json& issue : nlohmann::json::parse(lint.output)) found.push_back(issue["fingerprint"]);
  }
  EXPECT_EQ(fingerprints[0].size(), 2u);
  EXPECT_EQ(fingerprints[0], fingerprints[1]);
}

TEST(LintCommand, ChangedSinceLintsWhatTheBranchChangedThatTheDatabaseHas) {
  if (!LintBuilt()) GTEST_SKIP() << "streamcheck-lint is not built";
  TempDir repo;
  const std::string git = "git -C " + repo.str() + " -c user.name=t -c user.email=t@t ";
  fs::copy_file(kExamples + "/two_streams_fixed.cu", repo / "fixed.cu");
  std::ofstream(repo / "notes.md") << "notes\n";
  ASSERT_EQ(Shell(git + "init -q -b main && " + git + "add -A && " + git + "commit -q -m base").exit_code, 0);
  EXPECT_EQ(Shell("cd " + repo.str() + " && " + Binary() + " lint --changed-since HEAD 2>&1").exit_code, 0);
  fs::copy_file(kExamples + "/two_streams.cu", repo / "racy.cu");
  std::ofstream(repo / "racy.cuh") << "#pragma once\n";
  const Result r = Shell("cd " + repo.str() + " && " + Binary() + " lint --changed-since main 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("2 files changed since main; 1 to lint"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("racy.cu:"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("fixed.cu"), std::string::npos) << "unchanged files are not linted";
  const Result bad = Shell("cd " + repo.str() + " && " + Binary() + " lint --changed-since nowhere 2>&1");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("--changed-since nowhere: git merge-base failed"), std::string::npos) << bad.output;
  const Result both = Shell(Binary() + " lint --changed-since main racy.cu 2>&1");
  EXPECT_EQ(both.exit_code, 2);
}

TEST(LintCommand, SkipUnlistedKeepsTheFilesTheDatabaseHas) {
  if (!LintBuilt()) GTEST_SKIP() << "streamcheck-lint is not built";
  TempDir dir;
  const std::string source = kExamples + "/two_streams.cu";
  fs::create_directories(dir / "build");
  std::ofstream(dir / "build/compile_commands.json")
      << "[{\"directory\": \"" << dir.str() << "\", \"file\": \"" << source
      << "\", \"command\": \"/usr/local/cuda/bin/nvcc -c " << source << " -o two_streams.o\"}]";
  std::ofstream(dir / "header.cuh") << "#pragma once\n";
  const std::string files = source + " " + (dir / "header.cuh");
  const Result strict = Shell(Binary() + " lint -p " + (dir / "build") + " " + files + " 2>&1");
  EXPECT_EQ(strict.exit_code, 2) << "streamcheck-lint's own rule: a file without a command is an error";
  const Result r = Shell(Binary() + " lint --skip-unlisted -p " + (dir / "build") + " " + files + " 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("skipped " + (dir / "header.cuh") + " (no compile command in"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("[cross-stream-race]"), std::string::npos) << r.output;
  const Result only_headers = Shell(Binary() + " lint --skip-unlisted -p " + (dir / "build") + " " + (dir / "header.cuh"));
  EXPECT_EQ(only_headers.exit_code, 0);
}

// Findings a lock kept out of the database wait beside it (issue 44): the
// lint says so in replay's words and exits 2, and the next writer folds them
// in, once.
TEST(LintCommand, ALockedDatabaseKeepsTheFindingsBesideItAndSaysSo) {
  if (!LintBuilt()) GTEST_SKIP() << "streamcheck-lint is not built";
  TempDir dir;
  const std::string db = dir / "f.db", input = kExamples + "/two_streams.cu";
  ASSERT_EQ(Shell(Binary() + " lint --db " + db + " " + input + " >/dev/null 2>&1").exit_code, 1);
  auto stored = [&] {
    const Result r = Shell(Binary() + " report --format json " + db + " 2>/dev/null");
    return nlohmann::json::parse(r.output)["findings"].size();
  };
  const size_t per_run = stored();
  ASSERT_GT(per_run, 0u);
  // A writer that takes the lock once the lint's run row is in (the lint
  // writes its findings after its analysis), and holds it for 3 s.
  const std::string holder =
      "import sqlite3, time\n"
      "c = sqlite3.connect('" + db + "', isolation_level=None, timeout=10)\n"
      "while c.execute('SELECT count(*) FROM runs').fetchone()[0] < 2: time.sleep(0.002)\n"
      "c.execute('BEGIN IMMEDIATE'); open('" + (dir / "held") + "', 'w').close(); time.sleep(3)\n";
  { std::ofstream(dir / "holder.py") << holder; }
  Shell("python3 " + (dir / "holder.py") + " >/dev/null 2>&1 &");
  const Result locked = Shell(Binary() + " lint --busy-timeout 100 --db " + db + " " + input + " 2>&1 >/dev/null");
  if (locked.exit_code == 1 && !fs::exists(dir / "held")) GTEST_SKIP() << "the lint wrote before the lock was taken";
  EXPECT_EQ(locked.exit_code, 2) << locked.output;
  EXPECT_NE(locked.output.find("findings were kept in"), std::string::npos) << locked.output;
  ::sleep(4);
  EXPECT_EQ(Shell(Binary() + " lint --db " + db + " " + input + " >/dev/null 2>&1").exit_code, 1);
  EXPECT_EQ(stored(), 3 * per_run) << "the kept findings folded in once";
}

TEST(LintCommand, HelpShowsWhatTheCommandAdds) {
  if (!LintBuilt()) GTEST_SKIP() << "streamcheck-lint is not built";
  const Result r = Shell(Binary() + " lint --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("usage: streamcheck lint"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--changed-since REV"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace streamcheck
