// `report` and `merge` as the CLI runs them: filters and exit codes.
#include "report/report_command.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "store/database.h"
#include "store/merge.h"
#include "store/migrations.h"
#include "store/store.h"
#include "tests/store/store_fixtures.h"

namespace streamcheck::report {
namespace {

using testing::RaceFinding;
using testing::ScratchDir;
using testing::WriteAll;

std::string MakeStore(const ScratchDir& dir, const std::string& name,
                      const std::vector<std::string>& fingerprints) {
  std::string path = dir.File(name);
  std::string error;
  auto store = store::Store::Open(path, &error);
  int64_t run = store->BeginRun({.mode = "run", .command = name});
  for (size_t i = 0; i < fingerprints.size(); ++i)
    store->AddFinding(run, 0, i + 1, RaceFinding(fingerprints[i]));
  store->EndRun(run, 0);
  return path;
}

struct Outcome {
  int exit_code;
  std::string out, err;
};

Outcome Report(ReportRequest request) {
  std::ostringstream out, err;
  int rc = RunReport(request, out, err);
  return {rc, out.str(), err.str()};
}

TEST(ReportCommand, ExitCodes) {
  ScratchDir dir;
  std::string db = MakeStore(dir, "a.db", {"fp-a"});
  std::string clean = MakeStore(dir, "clean.db", {});
  EXPECT_EQ(Report({.db_path = db}).exit_code, 0);
  EXPECT_EQ(Report({.db_path = db, .findings_exit_code = 1}).exit_code, 1);
  EXPECT_EQ(Report({.db_path = clean, .findings_exit_code = 1}).exit_code, 0);
  EXPECT_EQ(Report({.db_path = db, .findings_exit_code = 3}).exit_code, 3);
  Outcome missing = Report({.db_path = dir.File("missing.db")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no such file"), std::string::npos) << missing.err;
  EXPECT_FALSE(std::filesystem::exists(dir.File("missing.db")));
  EXPECT_EQ(Report({.db_path = db, .format = "xml"}).exit_code, 2);
  EXPECT_EQ(Report({.db_path = db, .rule = "no-such-rule"}).exit_code, 2);
  EXPECT_EQ(Report({.db_path = db, .run = 99}).exit_code, 2);
  WriteAll(dir.File("garbage.db"), std::string(4096, 'g'));
  EXPECT_EQ(Report({.db_path = dir.File("garbage.db")}).exit_code, 2);
}

TEST(ReportCommand, BaselineAndSuppressionsFilter) {
  ScratchDir dir;
  std::string old_db = MakeStore(dir, "old.db", {"fp-a"});
  std::string new_db = MakeStore(dir, "new.db", {"fp-a", "fp-b"});
  Outcome all = Report({.db_path = new_db, .format = "json"});
  EXPECT_EQ(nlohmann::json::parse(all.out)["findings"].size(), 2u);
  Outcome fresh = Report({.db_path = new_db, .format = "json", .baseline_path = old_db,
                          .findings_exit_code = 1});
  EXPECT_EQ(fresh.exit_code, 1);
  auto findings = nlohmann::json::parse(fresh.out)["findings"];
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0]["fingerprint"], "fp-b");
  EXPECT_EQ(Report({.db_path = old_db, .baseline_path = old_db, .findings_exit_code = 1}).exit_code, 0);

  WriteAll(dir.File("s.supp"), "cross-stream-race kernel=sum_kernel -- known, see #1\n");
  Outcome suppressed = Report({.db_path = new_db, .suppressions_path = dir.File("s.supp"),
                               .findings_exit_code = 1});
  EXPECT_EQ(suppressed.exit_code, 0) << suppressed.out;
  WriteAll(dir.File("bad.supp"), "cross-stream-race kernel=sum_kernel\n");
  EXPECT_EQ(Report({.db_path = new_db, .suppressions_path = dir.File("bad.supp")}).exit_code, 2);
}

TEST(ReportCommand, RunSelection) {
  ScratchDir dir;
  std::string db = MakeStore(dir, "a.db", {"fp-a"});
  {
    std::string error;
    auto store = store::Store::Open(db, &error);
    int64_t run = store->BeginRun({.mode = "run"});
    store->AddFinding(run, 0, 1, RaceFinding("fp-x"));
    store->AddFinding(run, 0, 2, RaceFinding("fp-y"));
  }
  auto count = [&](std::optional<int64_t> run) {
    return nlohmann::json::parse(Report({.db_path = db, .format = "json", .run = run}).out)["findings"].size();
  };
  EXPECT_EQ(count(std::nullopt), 3u);
  EXPECT_EQ(count(1), 1u);
  EXPECT_EQ(count(-1), 2u);
}

TEST(ReportCommand, ReadsAnOldSchemaWithoutChangingTheFile) {
  ScratchDir dir;
  std::string path = dir.File("v1.db");
  std::string error;
  {
    store::Database db(path, false, true, &error);
    ASSERT_TRUE(Migrate(db, &error, 1)) << error;
    ASSERT_TRUE(db.Exec("INSERT INTO runs(mode, command, host, gpu, tool_version, start_time_ns) "
                        "VALUES('run', 'old', '', '', '0.0.1', 1)"));
  }
  std::string before = testing::ReadAll(path);
  Outcome outcome = Report({.db_path = path, .format = "json"});
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_EQ(nlohmann::json::parse(outcome.out)["runs"][0]["command"], "old");
  EXPECT_EQ(testing::ReadAll(path), before);
}

TEST(MergeCommand, MergesAndRejectsBadInput) {
  ScratchDir dir;
  std::string a = MakeStore(dir, "a.db", {"fp-a"});
  std::string b = MakeStore(dir, "b.db", {"fp-b"});
  std::ostringstream err;
  EXPECT_EQ(store::RunMerge(dir.File("out.db"), {a, b}, err), 0) << err.str();
  Outcome merged = Report({.db_path = dir.File("out.db"), .format = "json"});
  EXPECT_EQ(nlohmann::json::parse(merged.out)["findings"].size(), 2u);
  EXPECT_EQ(store::RunMerge(dir.File("out2.db"), {dir.File("missing.db")}, err), 2);
  EXPECT_EQ(store::RunMerge(a, {a}, err), 2);
}

}  // namespace
}  // namespace streamcheck::report
