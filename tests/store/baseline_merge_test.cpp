#include <gtest/gtest.h>

#include "store/baseline.h"
#include "store/database.h"
#include "store/merge.h"
#include "store/reader.h"
#include "store/store.h"
#include "tests/store/store_fixtures.h"

namespace streamcheck::store {
namespace {

using testing::RaceFinding;
using testing::ScratchDir;

// One run with one finding per fingerprint; returns the store's path.
std::string MakeStore(const ScratchDir& dir, const std::string& name,
                      const std::vector<std::string>& fingerprints, int32_t rank = -1) {
  std::string path = dir.File(name);
  std::string error;
  auto store = Store::Open(path, &error);
  EXPECT_TRUE(store) << error;
  int64_t run = store->BeginRun({.mode = "run", .command = name});
  int64_t process = store->AddProcess(run, {.pid = 100 + rank, .command = name, .rank = rank});
  store->AddCounters(run, process, "unmodeled_api", {{"cudaFooBar", 2}});
  for (size_t i = 0; i < fingerprints.size(); ++i) store->AddFinding(run, process, i + 1, RaceFinding(fingerprints[i]));
  store->EndRun(run, 0);
  return path;
}

TEST(Baseline, KeepsOnlyNewFingerprints) {
  ScratchDir dir;
  std::string old_db = MakeStore(dir, "old.db", {"fp-a", "fp-b"});
  std::string new_db = MakeStore(dir, "new.db", {"fp-b", "fp-c"});
  std::string error;
  std::set<std::string> baseline;
  ASSERT_TRUE(LoadBaselineFingerprints(old_db, &baseline, &error)) << error;
  EXPECT_EQ(baseline, (std::set<std::string>{"fp-a", "fp-b"}));
  auto store = Store::Open(new_db, &error);
  std::vector<StoredFinding> findings;
  ASSERT_TRUE(ReadFindings(*store, {}, &findings, &error));
  std::vector<StoredFinding> fresh = NewSinceBaseline(findings, baseline);
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_EQ(fresh[0].finding.fingerprint, "fp-c");
}

TEST(Baseline, MissingBaselineIsAnError) {
  ScratchDir dir;
  std::string error;
  std::set<std::string> baseline;
  EXPECT_FALSE(LoadBaselineFingerprints(dir.File("nope.db"), &baseline, &error));
  EXPECT_FALSE(error.empty());
}

TEST(Merge, CopiesRunsProcessesFindingsAndCounters) {
  ScratchDir dir;
  std::string rank0 = MakeStore(dir, "rank0.db", {"fp-a", "fp-b"}, 0);
  std::string rank1 = MakeStore(dir, "rank1.db", {"fp-a"}, 1);
  std::string error;
  auto out = Store::Open(dir.File("all.db"), &error);
  ASSERT_TRUE(out) << error;
  MergeStats stats;
  for (const std::string& path : {rank0, rank1}) {
    auto in = Store::Open(path, &error);
    ASSERT_TRUE(in) << error;
    ASSERT_TRUE(MergeInto(*out, *in, &stats, &error)) << error;
  }
  EXPECT_EQ(stats.runs, 2);
  EXPECT_EQ(stats.processes, 2);
  EXPECT_EQ(stats.findings, 3);

  std::vector<StoredRun> runs;
  ASSERT_TRUE(ReadRuns(*out, &runs, &error));
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].info.command, "rank1.db");
  EXPECT_EQ(runs[1].exit_status, 0);
  std::vector<StoredProcess> processes;
  ASSERT_TRUE(ReadProcesses(*out, runs[1].id, &processes, &error));
  ASSERT_EQ(processes.size(), 1u);
  EXPECT_EQ(processes[0].info.rank, 1);

  std::vector<StoredFinding> findings;
  ASSERT_TRUE(ReadFindings(*out, {.run = runs[1].id}, &findings, &error));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].process_id, processes[0].id);
  EXPECT_EQ(findings[0].finding.accesses.size(), 2u);
  EXPECT_EQ(findings[0].finding.accesses[0].stack.size(), 2u);

  std::map<std::string, std::map<std::string, uint64_t>> counters;
  ASSERT_TRUE(ReadCounters(*out, runs[0].id, &counters, &error));
  EXPECT_EQ(counters["unmodeled_api"]["cudaFooBar"], 2u);
}

TEST(Merge, AFailedInputLeavesTheOutputAsItWas) {
  ScratchDir dir;
  std::string rank0 = MakeStore(dir, "rank0.db", {"fp-a"}, 0);
  std::string error;
  auto out = Store::Open(dir.File("all.db"), &error);
  auto in = Store::Open(rank0, &error);
  // A trigger that rejects the second finding simulates a failure midway.
  ASSERT_TRUE(out->database().Exec(
      "CREATE TRIGGER reject AFTER INSERT ON accesses WHEN NEW.ordinal = 1 "
      "BEGIN SELECT RAISE(ABORT, 'disk full'); END"));
  EXPECT_FALSE(MergeInto(*out, *in, nullptr, &error));
  EXPECT_NE(error.find("disk full"), std::string::npos) << error;
  std::vector<StoredRun> runs;
  ASSERT_TRUE(ReadRuns(*out, &runs, &error));
  EXPECT_TRUE(runs.empty());
}

// A run merged before (or a copy of its file) is joined, not copied again:
// the findings it lacked are added once, its end filled in, its counters
// not added twice.
TEST(Merge, ARunAlreadyThereIsJoinedNotCopied) {
  ScratchDir dir;
  std::string error;
  const std::string path = dir.File("growing.db");
  auto growing = Store::Open(path, &error);
  ASSERT_TRUE(growing) << error;
  const int64_t run = growing->BeginRun({.mode = "run", .command = "./app"});
  const int64_t process = growing->AddProcess(run, {.pid = 7, .command = "./app"});
  ASSERT_TRUE(growing->AddCounters(run, process, "unmodeled_api", {{"cudaFooBar", 2}}));
  ASSERT_GT(growing->AddFinding(run, process, 1, RaceFinding("fp-a")), 0);
  auto out = Store::Open(dir.File("all.db"), &error);
  ASSERT_TRUE(out) << error;
  MergeStats first;
  ASSERT_TRUE(MergeInto(*out, *growing, &first, &error)) << error;
  ASSERT_GT(growing->AddFinding(run, process, 2, RaceFinding("fp-b")), 0);
  ASSERT_TRUE(growing->SetFindingCount(run, process, 1, 5));
  ASSERT_TRUE(growing->EndRun(run, 3));
  MergeStats again;
  ASSERT_TRUE(MergeInto(*out, *growing, &again, &error)) << error;
  EXPECT_EQ(again.runs, 0);
  EXPECT_EQ(again.runs_already_there, 1);
  EXPECT_EQ(again.processes, 0);
  EXPECT_EQ(again.findings, 1);
  EXPECT_EQ(again.findings_already_there, 1);

  std::vector<StoredRun> runs;
  ASSERT_TRUE(ReadRuns(*out, &runs, &error));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].exit_status, 3);
  std::vector<StoredFinding> findings;
  ASSERT_TRUE(ReadFindings(*out, {}, &findings, &error));
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].finding.count, 5u) << "the higher count";
  EXPECT_EQ(findings[0].process_id, findings[1].process_id);
  std::map<std::string, std::map<std::string, uint64_t>> counters;
  ASSERT_TRUE(ReadCounters(*out, runs[0].id, &counters, &error));
  EXPECT_EQ(counters["unmodeled_api"]["cudaFooBar"], 2u) << "not added twice";
}

}  // namespace
}  // namespace streamcheck::store
