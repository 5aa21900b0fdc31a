// The run session `run` (the tracer), `replay` and `lint` share: what each
// counter means, whoever wrote it, and what is claimed as stored.
#include "store/run_session.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "report/report_command.h"
#include "report/report_model.h"
#include "report/sarif_report.h"
#include "store/database.h"
#include "store/reader.h"
#include "tests/store/store_fixtures.h"

namespace streamcheck::store {
namespace {

using testing::RaceFinding;
using testing::ScratchDir;
using testing::WriteAll;

using Counters = std::map<std::string, std::map<std::string, uint64_t>>;

Counters CountersOf(const std::string& db, int64_t run) {
  std::string error;
  auto store = Store::Open(db, &error, {.read_only = true});
  EXPECT_TRUE(store) << error;
  Counters counters;
  EXPECT_TRUE(ReadCounters(*store, run, &counters, &error)) << error;
  return counters;
}

// Two findings, one of them (kernel `hidden`) suppressed; the kept one seen
// three times in all, the suppressed one twice.
void FeedTwoFindings(ProcessOutput* output) {
  Finding kept = RaceFinding("fp-kept");
  kept.accesses[1].stack = {{"reduce", "/src/app/kernels.cu", 11, 5, 0x30}};
  Finding hidden = RaceFinding("fp-hidden");
  hidden.accesses[1].op = "hidden";
  output->OnFinding(1, kept);
  output->OnFinding(2, hidden);
  output->OnFindingCount(1, 3);
  output->OnFindingCount(2, 2);
}

EngineStats SomeStats() {
  EngineStats stats;
  stats.records = 100;
  stats.stream_operations = 40;
  stats.host_operations = 60;
  stats.accesses_checked = 7;
  stats.findings = 2;  // the engine's own count: before suppression, never stored as such
  stats.finding_occurrences = 5;
  stats.unmodeled_apis = {{"cudaFoo", 4}};
  stats.anomalies = {{"wait on unknown stream", 1}};
  return stats;
}

// The meanings every writer shares (store/counters.def).
void ExpectSharedMeanings(const std::map<std::string, uint64_t>& stats) {
  EXPECT_EQ(stats.at("findings"), 1u) << "after suppression";
  EXPECT_EQ(stats.at("finding_occurrences"), 3u) << "of the kept findings";
  EXPECT_EQ(stats.at("suppressed"), 1u);
  EXPECT_EQ(stats.at("suppressed_occurrences"), 2u);
  EXPECT_EQ(stats.at("records"), 100u);
  EXPECT_EQ(stats.at("accesses_checked"), 7u);
}

TEST(RunSession, RunLikeUseJoinsTheRunAndCountsAfterSuppression) {
  ScratchDir dir;
  const std::string db = dir.File("run.db");
  WriteAll(dir.File("supp.txt"), "cross-stream-race kernel=hidden -- known\n");
  // `streamcheck run` begins the run; each traced process joins it.
  int64_t run = 0;
  {
    std::string error;
    auto parent = RunSession::Open({.db_path = db, .run = {.mode = "run", .command = "./app"}}, &error);
    ASSERT_TRUE(parent) << error;
    run = parent->run_id();
  }
  SessionConfig config{.db_path = db, .run = {.mode = "run"}, .existing_run = run,
                       .suppressions_path = dir.File("supp.txt"), .best_effort = true,
                       .frames_name_sources = true};
  std::string error;
  auto session = RunSession::Open(config, &error);
  ASSERT_TRUE(session) << error;
  EXPECT_TRUE(session->warnings().empty());
  EXPECT_EQ(session->run_id(), run);
  ProcessOutput* output = session->AddProcess(ProcessInfo{1234, "./app", "", -1});
  FeedTwoFindings(output);
  const EngineStats stats = SomeStats();
  session->FinishProcess(output, &stats);
  session->FinishProcess(output, &stats);  // once only: counters add up when written twice
  EXPECT_EQ(output->tally().stored, 1u);
  EXPECT_EQ(session->failed_writes(), 0u);

  Counters counters = CountersOf(db, run);
  ExpectSharedMeanings(counters["stats"]);
  EXPECT_EQ(counters["unmodeled_api"]["cudaFoo"], 4u);
  EXPECT_EQ(counters["anomaly"]["wait on unknown stream"], 1u);
  std::vector<StoredProcess> processes;
  auto store = Store::Open(db, &error, {.read_only = true});
  ASSERT_TRUE(ReadProcesses(*store, run, &processes, &error));
  ASSERT_EQ(processes.size(), 1u);
  EXPECT_EQ(processes[0].info.host, HostName()) << "one host-name helper fills it in";
  std::vector<StoredFinding> findings;
  ASSERT_TRUE(ReadFindings(*store, {run, ""}, &findings, &error));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].finding.fingerprint, "fp-kept");
  EXPECT_EQ(findings[0].finding.count, 3u);
  // The folder of the program's own source file became a source root.
  std::set<std::string> roots;
  ASSERT_TRUE(ReadSourceRoots(*store, {run}, &roots, &error));
  EXPECT_TRUE(roots.count("/src/app")) << "from the frame /src/app/kernels.cu";
}

TEST(RunSession, ReplayLikeUseBeginsTheRunWithTheSameMeaningsPerProcess) {
  ScratchDir dir;
  const std::string db = dir.File("replay.db");
  WriteAll(dir.File("supp.txt"), "cross-stream-race kernel=hidden -- known\n");
  std::string error;
  auto session = RunSession::Open({.db_path = db,
                                   .run = {.mode = "replay", .command = "streamcheck replay a b"},
                                   .suppressions_path = dir.File("supp.txt")},
                                  &error);
  ASSERT_TRUE(session) << error;
  for (const char* trace : {"a.sctrace", "b.sctrace"}) {
    ProcessOutput* output = session->AddProcess(ProcessInfo{0, trace, "", -1});
    FeedTwoFindings(output);
    const EngineStats stats = SomeStats();
    session->FinishProcess(output, &stats);
  }
  session->End(0);
  EXPECT_EQ(session->total().kept, 2u);
  EXPECT_EQ(session->total().stored, 2u);
  EXPECT_EQ(session->total().suppressed, 2u);

  auto store = Store::Open(db, &error, {.read_only = true});
  std::vector<StoredRun> runs;
  ASSERT_TRUE(ReadRuns(*store, &runs, &error));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].info.mode, "replay");
  EXPECT_EQ(runs[0].info.host, HostName());
  EXPECT_TRUE(runs[0].end_time_ns.has_value());
  EXPECT_EQ(runs[0].exit_status, 0);
  // Per process, the same meanings as after `run`.
  std::vector<StoredProcess> processes;
  ASSERT_TRUE(ReadProcesses(*store, runs[0].id, &processes, &error));
  ASSERT_EQ(processes.size(), 2u);
  for (const StoredProcess& p : processes) {
    Statement q = store->database().Prepare(
        "SELECT name, value FROM counters WHERE run_id = ? AND process_id = ? AND category = 'stats'");
    q.Bind(1, runs[0].id).Bind(2, p.id);
    std::map<std::string, uint64_t> stats;
    while (q.Step()) stats[q.Text(0)] = static_cast<uint64_t>(q.Int(1));
    ExpectSharedMeanings(stats);
  }
  // A trace is only data: its frames' folders are no source roots, the
  // working directory is.
  std::set<std::string> roots;
  ASSERT_TRUE(ReadSourceRoots(*store, {runs[0].id}, &roots, &error));
  EXPECT_FALSE(roots.count("/src/app"));
  EXPECT_EQ(roots.size(), 1u);
}

TEST(RunSession, LintLikeUseHasNoProcessRowAndNoEngineFigures) {
  ScratchDir dir;
  const std::string db = dir.File("lint.db");
  std::string error;
  auto session = RunSession::Open({.db_path = db, .run = {.mode = "lint"}}, &error);
  ASSERT_TRUE(session) << error;
  ProcessOutput* output = session->AddProcess(std::nullopt);
  output->OnFinding(1, RaceFinding("a"));
  session->FinishProcess(output, nullptr);
  session->End(1);
  Counters counters = CountersOf(db, session->run_id());
  EXPECT_EQ(counters["stats"]["findings"], 1u);
  EXPECT_EQ(counters["stats"].count("records"), 0u) << "no engine ran";
}

TEST(RunSession, WithoutADatabaseSuppressesAndCountsAlike) {
  ScratchDir dir;
  WriteAll(dir.File("supp.txt"), "cross-stream-race kernel=hidden -- known\n");
  std::string error;
  auto session = RunSession::Open({.suppressions_path = dir.File("supp.txt")}, &error);
  ASSERT_TRUE(session) << error;
  EXPECT_FALSE(session->has_store());
  ProcessOutput* output = session->AddProcess(ProcessInfo{});
  FeedTwoFindings(output);
  EXPECT_TRUE(output->WasSuppressed(2));
  EXPECT_FALSE(output->WasSuppressed(1));
  EXPECT_EQ(output->tally().kept, 1u);
  EXPECT_EQ(output->tally().occurrences, 3u);
  EXPECT_EQ(output->tally().stored, 0u);
}

TEST(RunSession, UnusableInputsFailUnlessBestEffort) {
  ScratchDir dir;
  WriteAll(dir.File("bad.txt"), "no-such-rule -- why\n");
  WriteAll(dir.File("not.db"), "this is not a database, just text long enough to look like a header......");
  std::string error;
  EXPECT_FALSE(RunSession::Open({.suppressions_path = dir.File("bad.txt")}, &error));
  EXPECT_NE(error.find("no-such-rule"), std::string::npos) << error;
  EXPECT_FALSE(RunSession::Open({.db_path = dir.File("not.db")}, &error));

  // The tracer goes on without them, and says so.
  auto session = RunSession::Open({.db_path = dir.File("not.db"),
                                   .existing_run = 7,
                                   .suppressions_path = dir.File("bad.txt"),
                                   .best_effort = true},
                                  &error);
  ASSERT_TRUE(session);
  EXPECT_EQ(session->run_id(), 7) << "the run is kept for processes forked later";
  ASSERT_EQ(session->warnings().size(), 2u);
  EXPECT_NE(session->warnings()[0].find("ignoring suppressions"), std::string::npos);
  EXPECT_NE(session->warnings()[1].find("findings go to stderr only"), std::string::npos);
  EXPECT_FALSE(session->has_store());
}

// A write the lock kept out waits, and goes in once the lock is free: the
// tally claims it stored only then. Still locked when the process finishes,
// it goes to a pending file beside the database, and the session says so.
TEST(RunSession, ALockedDatabaseLosesNoFindingAndClaimsNoneEarly) {
  ScratchDir dir;
  const std::string db = dir.File("locked.db");
  std::string error;
  auto session = RunSession::Open({.db_path = db, .run = {.mode = "replay"}, .open = {.busy_timeout_ms = 50}},
                                  &error);
  ASSERT_TRUE(session) << error;
  ProcessOutput* output = session->AddProcess(ProcessInfo{0, "t", "", -1});
  output->OnFinding(1, RaceFinding("stored"));
  {
    Database holder(db, false, false, &error);
    ASSERT_TRUE(holder.Exec("BEGIN IMMEDIATE"));  // another writer holds the lock
    output->OnFinding(2, RaceFinding("waits"));
    output->OnFindingCount(1, 4);
    EXPECT_EQ(output->tally().stored, 1u);
  }
  output->OnFinding(3, RaceFinding("after"));
  EXPECT_EQ(output->tally().kept, 3u);
  EXPECT_EQ(output->tally().stored, 3u);
  EXPECT_EQ(session->failed_writes(), 0u);

  Database holder(db, false, false, &error);
  ASSERT_TRUE(holder.Exec("BEGIN IMMEDIATE"));
  output->OnFinding(4, RaceFinding("beside"));
  session->FinishProcess(output, nullptr);
  EXPECT_EQ(output->tally().stored, 3u);
  EXPECT_EQ(session->findings_kept_beside(), 1u);
  ASSERT_EQ(session->pending_files().size(), 1u);
  EXPECT_NE(session->UnstoredSummary().find("1 findings were kept in " + session->pending_files()[0]),
            std::string::npos)
      << session->UnstoredSummary();
  EXPECT_NE(session->UnstoredSummary().find("locked"), std::string::npos) << session->UnstoredSummary();
}

TEST(RunSession, EveryCounterIsDocumented) {
  std::ifstream in(std::string(STREAMCHECK_SOURCE_DIR) + "/docs/SCHEMA.md");
  std::stringstream schema;
  schema << in.rdbuf();
  for (const CounterDoc& doc : DocumentedCounters())
    EXPECT_NE(schema.str().find("`" + std::string(doc.name) + "`"), std::string::npos)
        << doc.name << " is not in docs/SCHEMA.md";
}

// The lint's SARIF is built in memory; it must read exactly as the store's
// export of the same findings did when the lint went through a database.
TEST(LintSarif, InMemoryModelGivesTheStoresOutput) {
  ScratchDir dir;
  const std::string db = dir.File("lint.db");
  std::vector<Finding> findings = {RaceFinding("a"), RaceFinding("b")};
  findings[1].rule = "use-after-free";
  findings[1].accesses[1].stack = {{"main", "src/with space.cu", 7, 3, 0}};
  findings[1].origin = FindingOrigin::kStatic;
  std::string error;
  {
    auto session = RunSession::Open({.db_path = db, .run = {.mode = "lint"}}, &error);
    ASSERT_TRUE(session) << error;
    ProcessOutput* output = session->AddProcess(std::nullopt);
    for (size_t i = 0; i < findings.size(); ++i) output->OnFinding(i + 1, findings[i]);
    session->End(1);
  }
  std::ostringstream from_store, messages;
  ASSERT_EQ(report::RunReport({.db_path = db, .format = "sarif"}, from_store, messages), 0) << messages.str();

  report::ReportData data;
  for (size_t i = 0; i < findings.size(); ++i) data.findings.push_back(report::InMemoryFinding(findings[i], i + 1));
  std::ostringstream from_memory;
  ASSERT_TRUE(report::WriteSarifReport(data, from_memory));
  EXPECT_EQ(from_memory.str(), from_store.str());
}

}  // namespace
}  // namespace streamcheck::store
