// Writes a lock kept out: they wait, go in once the lock is free, or go to a
// pending file beside the database that the next writer folds in once.
#include "store/pending_writes.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "store/database.h"
#include "store/reader.h"
#include "tests/store/store_fixtures.h"

namespace streamcheck::store {
namespace {

using testing::RaceFinding;
using testing::ScratchDir;

TEST(PendingWrites, WhatALockKeptOutIsFoldedInOnceFromAPendingFile) {
  ScratchDir dir;
  const std::string db = dir.File("f.db");
  std::string error;
  auto store = Store::Open(db, &error, {.busy_timeout_ms = 20});
  ASSERT_TRUE(store) << error;
  const int64_t run = store->BeginRun({.mode = "replay", .command = "locked"});
  const ProcessInfo info{.pid = 42, .command = "trace", .host = "h"};
  const int64_t process = store->AddProcess(run, info);
  ASSERT_GT(store->AddFinding(run, process, 1, RaceFinding("fp-stored")), 0);
  std::vector<StoredRun> runs;
  ASSERT_TRUE(ReadRuns(*store, &runs, &error));

  Database holder(db, false, false, &error);
  ASSERT_TRUE(holder.Exec("BEGIN IMMEDIATE")) << holder.error();
  PendingWrites pending;
  const PendingWrites::Process p{process, info};
  pending.AddFinding(0, p, 2, RaceFinding("fp-pending"));
  EXPECT_TRUE(pending.UpdatePendingCount(process, 2, 7));
  EXPECT_FALSE(pending.UpdatePendingCount(process, 1, 9));
  pending.AddCount(p, 1, 9);
  pending.AddCounters(p, "stats", {{"findings", 2}});
  pending.EndRun(3);
  EXPECT_FALSE(pending.WriteTo(*store, run, 0));
  EXPECT_TRUE(store->locked_out()) << store->last_error();
  const std::string file = pending.Spill(db, runs[0], &error);
  ASSERT_FALSE(file.empty()) << error;
  EXPECT_TRUE(pending.empty());
  EXPECT_EQ(PendingFiles(db), std::vector<std::string>{file});
  holder.Exec("ROLLBACK");

  EXPECT_EQ(FoldPendingFiles(*store, &error), 1u) << error;
  EXPECT_TRUE(PendingFiles(db).empty());
  EXPECT_FALSE(std::filesystem::exists(file));
  std::vector<StoredFinding> findings;
  ASSERT_TRUE(ReadFindings(*store, {}, &findings, &error));
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].finding.count, 9u) << "the count kept for a stored finding";
  EXPECT_EQ(findings[1].finding.count, 7u);
  EXPECT_EQ(findings[1].process_id, process) << "the same process, not a copy of it";
  ASSERT_TRUE(ReadRuns(*store, &runs, &error));
  ASSERT_EQ(runs.size(), 1u) << "the same run, not a copy of it";
  EXPECT_EQ(runs[0].exit_status, 3);
  std::map<std::string, std::map<std::string, uint64_t>> counters;
  ASSERT_TRUE(ReadCounters(*store, run, &counters, &error));
  EXPECT_EQ(counters["stats"]["findings"], 2u);
  EXPECT_EQ(FoldPendingFiles(*store, &error), 0u);
}

TEST(PendingWrites, WrittenOnceTheLockIsFree) {
  ScratchDir dir;
  std::string error;
  auto store = Store::Open(dir.File("f.db"), &error);
  ASSERT_TRUE(store) << error;
  const int64_t run = store->BeginRun({.mode = "replay", .command = "free"});
  PendingWrites pending;
  pending.AddFinding(3, {}, 1, RaceFinding());
  pending.AddFinding(3, {}, 2, RaceFinding("fp-2"));
  const auto written = pending.WriteTo(*store, run, 0);
  ASSERT_TRUE(written) << store->last_error();
  EXPECT_EQ(written->at(3), 2u);
  EXPECT_TRUE(pending.empty());
}

}  // namespace
}  // namespace streamcheck::store
