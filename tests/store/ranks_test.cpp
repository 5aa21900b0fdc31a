// The ranks of a distributed job (torchrun, mpirun, srun): each finding
// knows its process's rank and host, and a report shows the same race
// found on several ranks once, with the ranks listed (report_model.h).
#include <gtest/gtest.h>

#include <sstream>

#include "report/json_report.h"
#include "report/report_command.h"
#include "report/report_model.h"
#include "report/text_report.h"
#include "store/merge.h"
#include "store/reader.h"
#include "store/store.h"
#include "tests/store/store_fixtures.h"

namespace streamcheck::store {
namespace {

using testing::RaceFinding;
using testing::ScratchDir;

// A run of `ranks` processes on host "node1" (rank -1: a process without
// one), each reporting the normal_/sum race; rank 1 also another race.
void WriteJob(Store& store, const std::vector<int32_t>& ranks, uint64_t count) {
  const int64_t run = store.BeginRun({"run", "torchrun --nproc_per_node=2 train.py", "node1", "", "test", 0});
  for (int32_t rank : ranks) {
    const int64_t process = store.AddProcess(run, {1000 + rank, "python train.py", "node1", rank});
    Finding race = RaceFinding();
    race.count = count;
    ASSERT_GT(store.AddFinding(run, process, 1, race), 0) << store.last_error();
    if (rank == 1) {
      ASSERT_GT(store.AddFinding(run, process, 2, RaceFinding("fp-other")), 0);
    }
  }
}

std::vector<StoredFinding> Read(Store& store) {
  std::vector<StoredFinding> findings;
  std::string error;
  EXPECT_TRUE(ReadFindings(store, {}, &findings, &error)) << error;
  return findings;
}

TEST(Ranks, EachFindingKnowsItsProcesssRankAndHost) {
  ScratchDir dir;
  std::string error;
  auto store = Store::Open(dir.File("job.db"), &error);
  ASSERT_TRUE(store) << error;
  WriteJob(*store, {0, 1, -1}, 2);
  const std::vector<StoredFinding> found = Read(*store);
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(found[0].ranks, std::vector<int32_t>{0});
  EXPECT_EQ(found[0].host, "node1");
  EXPECT_EQ(found[1].ranks, std::vector<int32_t>{1});
  EXPECT_TRUE(found[3].ranks.empty());  // the process without a rank
}

TEST(Ranks, TheSameRaceOnSeveralRanksIsOneFindingWithTheRanksListed) {
  ScratchDir dir;
  std::string error;
  auto store = Store::Open(dir.File("job.db"), &error);
  ASSERT_TRUE(store) << error;
  WriteJob(*store, {1, 0, -1}, 2);
  WriteJob(*store, {0}, 1);  // a second run: its findings stay its own
  report::ReportData data;
  data.db_path = "job.db";
  data.findings = Read(*store);
  report::FoldAcrossRanks(&data.findings);
  ASSERT_EQ(data.findings.size(), 4u);
  EXPECT_EQ(data.findings[0].ranks, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(data.findings[0].finding.count, 4u);
  EXPECT_EQ(report::DescribeRanks(data.findings[0]), "ranks 0, 1");
  EXPECT_EQ(data.findings[1].finding.fingerprint, "fp-other");
  EXPECT_EQ(report::DescribeRanks(data.findings[1]), "rank 1");
  EXPECT_TRUE(data.findings[2].ranks.empty());  // no rank: not folded
  EXPECT_EQ(data.findings[3].ranks, std::vector<int32_t>{0});
  std::ostringstream text, summary;
  report::WriteTextReport(data, text);
  EXPECT_NE(text.str().find("  on ranks 0, 1 (host node1)\n"), std::string::npos) << text.str();
  report::WriteSummaryReport(data, summary);
  EXPECT_NE(summary.str().find("(seen 4 times) [ranks 0, 1]"), std::string::npos) << summary.str();
  EXPECT_EQ(report::JsonFinding(data.findings[0])["ranks"], nlohmann::json::array({0, 1}));
}

nlohmann::json JsonReportOf(const report::ReportRequest& request) {
  std::ostringstream out, err;
  EXPECT_EQ(report::RunReport(request, out, err), 0) << err.str();
  return nlohmann::json::parse(out.str());
}

// `report` reads its findings one at a time: the same race's findings come
// together (FindingQuery::ranks_together) and are folded as they pass, where
// the first of them would be in id order.
TEST(Ranks, ReportFoldsTheRanksAsItReadsTheFindings) {
  ScratchDir dir;
  std::string error;
  const std::string db = dir.File("job.db");
  {
    auto store = Store::Open(db, &error);
    ASSERT_TRUE(store) << error;
    WriteJob(*store, {1, 0, -1}, 2);
    WriteJob(*store, {0}, 1);
  }
  const nlohmann::json report = JsonReportOf({.db_path = db, .format = "json"});
  const nlohmann::json& findings = report["findings"];
  ASSERT_EQ(findings.size(), 4u) << report.dump(2);
  EXPECT_EQ(findings[0]["ranks"], nlohmann::json::array({0, 1}));
  EXPECT_EQ(findings[0]["count"], 4);
  EXPECT_EQ(findings[0]["id"], 1);  // rank 1's, found first
  EXPECT_EQ(findings[1]["fingerprint"], "fp-other");
  EXPECT_EQ(findings[2]["ranks"], nlohmann::json::array());
  EXPECT_EQ(findings[3]["run"], 2);
  EXPECT_EQ(findings[3]["ranks"], nlohmann::json::array({0}));

  std::ostringstream text, summary, err;
  ASSERT_EQ(report::RunReport({.db_path = db, .format = "text", .run = 1}, text, err), 0) << err.str();
  EXPECT_NE(text.str().find("  on ranks 0, 1 (host node1)\n"), std::string::npos) << text.str();
  ASSERT_EQ(report::RunReport({.db_path = db, .format = "summary", .run = 1}, summary, err), 0) << err.str();
  EXPECT_NE(summary.str().find("(seen 4 times) [ranks 0, 1]"), std::string::npos) << summary.str();
}

// The filters come first: a rank's finding a suppression drops adds neither
// its rank nor its count, and the next rank's finding stands for the race.
TEST(Ranks, ASuppressedRanksFindingIsNotFoldedIn) {
  ScratchDir dir;
  std::string error;
  const std::string db = dir.File("job.db");
  {
    auto store = Store::Open(db, &error);
    ASSERT_TRUE(store) << error;
    const int64_t run = store->BeginRun({"run", "mpirun -n 3 train", "node1", "", "test", 0});
    for (int32_t rank : {2, 0, 1}) {
      const int64_t process = store->AddProcess(run, {1000 + rank, "train", "node1", rank});
      Finding race = RaceFinding();
      race.count = 10 + rank;
      // Rank 2's stack differs below the frames the fingerprint hashes.
      if (rank == 2) race.accesses[1].stack.push_back({"rank_two_only", "train.py", 1, 0, 0});
      ASSERT_GT(store->AddFinding(run, process, 1, race), 0) << store->last_error();
    }
  }
  const std::string suppressions = dir.File("suppressions.txt");
  testing::WriteAll(suppressions, "cross-stream-race function=rank_two_only -- rank 2's own case\n");
  const nlohmann::json report =
      JsonReportOf({.db_path = db, .format = "json", .suppressions_path = suppressions});
  ASSERT_EQ(report["findings"].size(), 1u) << report.dump(2);
  EXPECT_EQ(report["findings"][0]["ranks"], nlohmann::json::array({0, 1}));
  EXPECT_EQ(report["findings"][0]["count"], 10 + 11);
  EXPECT_EQ(report["findings"][0]["id"], 2);  // rank 0's, the first one kept
}

// Ranks on several nodes write a database each; merged, their processes
// keep rank and host.
TEST(Ranks, MergeKeepsEachProcesssRankAndHost) {
  ScratchDir dir;
  std::string error;
  auto node = Store::Open(dir.File("node2.db"), &error);
  ASSERT_TRUE(node) << error;
  WriteJob(*node, {3}, 1);
  auto merged = Store::Open(dir.File("merged.db"), &error);
  ASSERT_TRUE(merged) << error;
  ASSERT_TRUE(MergeInto(*merged, *node, nullptr, &error)) << error;
  const std::vector<StoredFinding> found = Read(*merged);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].ranks, std::vector<int32_t>{3});
  EXPECT_EQ(found[0].host, "node1");
}

}  // namespace
}  // namespace streamcheck::store
