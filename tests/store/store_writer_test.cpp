// The writer: runs, processes, counters and the finding sink, read back.
#include <gtest/gtest.h>

#include <iostream>

#include "report/report_command.h"
#include "store/database.h"
#include "store/merge.h"
#include "store/reader.h"
#include "store/store.h"
#include "tests/store/store_fixtures.h"

namespace streamcheck::store {
namespace {

using testing::RaceFinding;
using testing::ScratchDir;

TEST(StoreWriter, RunAndProcessRoundTrip) {
  ScratchDir dir;
  std::string error;
  auto store = Store::Open(dir.File("a.db"), &error);
  ASSERT_TRUE(store) << error;
  RunInfo info{.mode = "run", .command = "python train.py", .host = "node1", .gpu = "H100"};
  int64_t run = store->BeginRun(info);
  ASSERT_GT(run, 0) << store->last_error();
  int64_t process = store->AddProcess(run, {.pid = 4242, .command = "python train.py", .host = "node1", .rank = 3});
  ASSERT_GT(process, 0);
  ASSERT_TRUE(store->EndRun(run, 7));

  std::vector<StoredRun> runs;
  ASSERT_TRUE(ReadRuns(*store, &runs, &error)) << error;
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].info.command, "python train.py");
  EXPECT_EQ(runs[0].info.gpu, "H100");
  EXPECT_EQ(runs[0].info.tool_version, STREAMCHECK_VERSION);
  EXPECT_GT(runs[0].info.start_time_ns, 0);
  ASSERT_TRUE(runs[0].end_time_ns.has_value());
  EXPECT_GE(*runs[0].end_time_ns, runs[0].info.start_time_ns);
  EXPECT_EQ(runs[0].exit_status, 7);

  std::vector<StoredProcess> processes;
  ASSERT_TRUE(ReadProcesses(*store, run, &processes, &error));
  ASSERT_EQ(processes.size(), 1u);
  EXPECT_EQ(processes[0].info.pid, 4242);
  EXPECT_EQ(processes[0].info.rank, 3);
}

TEST(StoreWriter, SinkWritesEachFindingImmediatelyAndUpdatesCounts) {
  ScratchDir dir;
  std::string path = dir.File("a.db");
  std::string error;
  auto store = Store::Open(path, &error);
  ASSERT_TRUE(store) << error;
  int64_t run = store->BeginRun({.mode = "run", .command = "./app"});
  int64_t process = store->AddProcess(run, {.pid = 1, .command = "./app"});
  store->AddFinding(run, process, 1, RaceFinding());

  // Another connection sees it before the run ends: a crash now loses nothing.
  {
    auto reader = Store::Open(path, &error, {.read_only = true});
    ASSERT_TRUE(reader) << error;
    std::vector<StoredFinding> findings;
    ASSERT_TRUE(ReadFindings(*reader, {}, &findings, &error)) << error;
    ASSERT_EQ(findings.size(), 1u);
  }
  store->SetFindingCount(run, process, 1, 17);

  std::vector<StoredFinding> findings;
  ASSERT_TRUE(ReadFindings(*store, {}, &findings, &error)) << error;
  ASSERT_EQ(findings.size(), 1u);
  const StoredFinding& s = findings[0];
  EXPECT_EQ(s.severity, "error");
  EXPECT_EQ(s.process_id, process);
  EXPECT_EQ(s.local_id, 1u);
  const Finding& f = s.finding;
  const Finding expected = RaceFinding();
  EXPECT_EQ(f.count, 17u);
  EXPECT_EQ(f.rule, expected.rule);
  EXPECT_EQ(f.kind, expected.kind);
  EXPECT_EQ(f.reason, expected.reason);
  EXPECT_EQ(f.fix, expected.fix);
  EXPECT_EQ(f.fingerprint, expected.fingerprint);
  EXPECT_EQ(f.buffer.allocated_by, "cudaMalloc");
  ASSERT_EQ(f.buffer.allocation_stack.size(), 1u);
  ASSERT_EQ(f.accesses.size(), 2u);
  EXPECT_EQ(f.accesses[0].framework_op, "aten::normal_");
  EXPECT_EQ(f.accesses[0].mode, AccessMode::kWrite);
  EXPECT_EQ(f.accesses[1].mode, AccessMode::kRead);
  EXPECT_EQ(f.accesses[1].stream_handle, 0x5555u);
  EXPECT_EQ(f.accesses[1].address, 0x7f0000001000u);
  ASSERT_EQ(f.accesses[0].stack.size(), 2u);
  EXPECT_EQ(f.accesses[0].stack[1].file, "model.py");
  EXPECT_EQ(f.accesses[0].stack[1].line, 7u);
  EXPECT_EQ(f.accesses[1].stack[0].column, 5u);
}

TEST(StoreWriter, LintFindingsNeedNoProcessAndKeepTheirColumn) {
  ScratchDir dir;
  std::string error;
  auto store = Store::Open(dir.File("lint.db"), &error);
  ASSERT_TRUE(store) << error;
  int64_t run = store->BeginRun({.mode = "lint", .command = "streamcheck lint src/"});
  Finding f = RaceFinding();
  f.origin = FindingOrigin::kStatic;
  ASSERT_GT(store->AddFinding(run, 0, 1, f), 0) << store->last_error();
  auto q = store->database().Prepare("SELECT file, line, \"column\" FROM lint_locations ORDER BY ordinal");
  ASSERT_TRUE(q.Step());
  EXPECT_EQ(q.Text(0), "");  // the first access's innermost frame has no file
  ASSERT_TRUE(q.Step());
  EXPECT_EQ(q.Text(0), "model.py");
  EXPECT_EQ(q.Int(2), 5);

  std::vector<StoredFinding> findings;
  ASSERT_TRUE(ReadFindings(*store, {}, &findings, &error));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].process_id, 0);
  EXPECT_EQ(findings[0].finding.origin, FindingOrigin::kStatic);
}

TEST(StoreWriter, CountersAddUp) {
  ScratchDir dir;
  std::string error;
  auto store = Store::Open(dir.File("a.db"), &error);
  ASSERT_TRUE(store) << error;
  int64_t run = store->BeginRun({.mode = "replay"});
  int64_t p1 = store->AddProcess(run, {.pid = 1});
  int64_t p2 = store->AddProcess(run, {.pid = 2});
  ASSERT_TRUE(store->AddCounters(run, p1, "unmodeled_api", {{"cudaGraphAddMemcpyNode1D", 2}}));
  ASSERT_TRUE(store->AddCounters(run, p2, "unmodeled_api", {{"cudaGraphAddMemcpyNode1D", 3}}));
  ASSERT_TRUE(store->AddCounters(run, p1, "stats", {{"records", 100}}));
  ASSERT_TRUE(store->AddCounters(run, p1, "stats", {{"records", 5}}));
  std::map<std::string, std::map<std::string, uint64_t>> counters;
  ASSERT_TRUE(ReadCounters(*store, run, &counters, &error)) << error;
  EXPECT_EQ(counters["unmodeled_api"]["cudaGraphAddMemcpyNode1D"], 5u);
  EXPECT_EQ(counters["stats"]["records"], 105u);
}

TEST(StoreWriter, FiltersByRunAndRule) {
  ScratchDir dir;
  std::string error;
  auto store = Store::Open(dir.File("a.db"), &error);
  ASSERT_TRUE(store) << error;
  int64_t run1 = store->BeginRun({.mode = "run"});
  int64_t run2 = store->BeginRun({.mode = "run"});
  Finding timing = RaceFinding("fp-timing");
  timing.rule = "unsynchronized-timing";
  store->AddFinding(run1, 0, 1, RaceFinding());
  store->AddFinding(run2, 0, 1, RaceFinding());
  store->AddFinding(run2, 0, 2, timing);
  std::vector<StoredFinding> findings;
  ASSERT_TRUE(ReadFindings(*store, {.run = run2}, &findings, &error));
  EXPECT_EQ(findings.size(), 2u);
  ASSERT_TRUE(ReadFindings(*store, {.rule = "unsynchronized-timing"}, &findings, &error));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, "warning");
  ASSERT_TRUE(ReadFindings(*store, {}, &findings, &error));
  EXPECT_EQ(findings.size(), 3u);
}

}  // namespace
}  // namespace streamcheck::store

namespace streamcheck::store {
namespace {

// Schema 4: what names streams and events, why no edge exists, the syncs and
// frames' modules come back as they went in (and merge carries them).
void ExpectNamedFieldsKept(const Finding& f) {
  EXPECT_EQ(f.order_gap, "non-blocking-stream");
  ASSERT_EQ(f.accesses.size(), 2u);
  EXPECT_EQ(f.accesses[0].stream_kind, "legacy");
  const ObjectOrigin& origin = f.accesses[1].stream_origin;
  EXPECT_EQ(f.accesses[1].stream_kind, "created");
  EXPECT_EQ(origin.ordinal, 1u);
  EXPECT_EQ(origin.created_by, "cudaStreamCreateWithPriority");
  EXPECT_TRUE(origin.created_at.empty());
  EXPECT_EQ(origin.first_op, "aten::sum");
  ASSERT_EQ(origin.first_used_at.size(), 1u);
  EXPECT_EQ(origin.first_used_at[0].line, 11u);
  ASSERT_EQ(f.syncs.size(), 1u);
  const FindingAccess& record = f.syncs[0];
  EXPECT_EQ(record.role, "event record");
  EXPECT_EQ(record.event, 0xe1u);
  EXPECT_EQ(record.event_origin.ordinal, 1u);
  EXPECT_EQ(record.event_origin.created_by, "cudaEventCreate");
  ASSERT_EQ(record.event_origin.created_at.size(), 1u);
  EXPECT_EQ(record.event_origin.created_at[0].line, 5u);
  ASSERT_EQ(record.stack.size(), 2u);
  EXPECT_EQ(record.stack[0].module, "libcudart.so.13");
  EXPECT_EQ(record.stack[0].module_offset, 0x4242u);
  EXPECT_EQ(record.stack[1].module, "");
}

TEST(StoreWriter, NamesOfStreamsEventsAndSyncsRoundTrip) {
  ScratchDir dir;
  std::string error;
  {
    auto store = Store::Open(dir.File("a.db"), &error);
    ASSERT_TRUE(store) << error;
    const int64_t run = store->BeginRun({.mode = "run", .command = "./app"});
    ASSERT_GT(store->AddFinding(run, 0, 1, testing::NamedRaceFinding()), 0) << store->last_error();
  }
  auto store = Store::Open(dir.File("a.db"), &error, {.read_only = true});
  ASSERT_TRUE(store) << error;
  std::vector<StoredFinding> findings;
  ASSERT_TRUE(ReadFindings(*store, {}, &findings, &error)) << error;
  ASSERT_EQ(findings.size(), 1u);
  ExpectNamedFieldsKept(findings[0].finding);
  // The syncs are not accesses: queries over accesses see the two sides only.
  EXPECT_EQ(store->database().QueryInt("SELECT count(*) FROM accesses"), 2);
  EXPECT_EQ(store->database().QueryInt("SELECT count(*) FROM syncs"), 1);

  store.reset();
  ASSERT_EQ(RunMerge(dir.File("merged.db"), {dir.File("a.db")}, std::cerr), 0);
  auto merged = Store::Open(dir.File("merged.db"), &error, {.read_only = true});
  ASSERT_TRUE(merged) << error;
  ASSERT_TRUE(ReadFindings(*merged, {}, &findings, &error)) << error;
  ASSERT_EQ(findings.size(), 1u);
  ExpectNamedFieldsKept(findings[0].finding);
}

// A possible finding's doubts come back as they went in, and a warning the
// engine held to one (Finding::at_most_warning: guessed bytes) stays a
// warning when merged into another database, which writes its severity anew.
TEST(StoreWriter, DoubtsAndAHeldWarningSurviveAMerge) {
  ScratchDir dir;
  std::string error;
  Finding f = testing::NamedRaceFinding();
  f.confidence = Confidence::kPossible;
  f.at_most_warning = true;
  f.uncertainty = {"guessed-extent", "unobserved-handover"};
  f.aware_thread = 2;
  {
    auto store = Store::Open(dir.File("a.db"), &error);
    ASSERT_TRUE(store) << error;
    const int64_t run = store->BeginRun({.mode = "run", .command = "./app"});
    ASSERT_GT(store->AddFinding(run, 0, 1, f), 0) << store->last_error();
  }
  ASSERT_EQ(RunMerge(dir.File("merged.db"), {dir.File("a.db")}, std::cerr), 0);
  for (const char* db : {"a.db", "merged.db"}) {
    auto store = Store::Open(dir.File(db), &error, {.read_only = true});
    ASSERT_TRUE(store) << error;
    std::vector<StoredFinding> findings;
    ASSERT_TRUE(ReadFindings(*store, {}, &findings, &error)) << error;
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].severity, "warning") << db;
    EXPECT_TRUE(findings[0].finding.at_most_warning) << db;
    EXPECT_EQ(findings[0].finding.uncertainty, f.uncertainty) << db;
    EXPECT_EQ(findings[0].finding.aware_thread, 2u) << db;
  }
}

}  // namespace
}  // namespace streamcheck::store
