// The tracer's outputs through the run session (store/run_session.h): a
// traced process joins the run `streamcheck run` began, and its counters mean
// what replay's and lint's do — `findings` after suppression, `suppressed`
// the dropped ones — with the program's source folders as the run's roots.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "store/reader.h"
#include "store/run_session.h"
#include "tests/tracer/two_races.h"
#include "tracer/tracer.h"

namespace streamcheck::tracer {
namespace {

using testing_records::EmitTwoRaces;

TEST(TracerOutputs, ATracedProcessCountsFindingsAfterSuppression) {
  const std::string dir = ::testing::TempDir() + "tracer_outputs." + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const std::string db = dir + "/run.db";
  std::ofstream(dir + "/supp.txt") << "cross-stream-race kernel=drop_* -- known\n";
  int64_t run = 0;
  {
    // `streamcheck run` begins the run; the traced process joins it.
    store::SessionConfig begun;
    begun.db_path = db;
    begun.run.mode = "run";
    begun.run.command = "./app";
    std::string error;
    auto parent = store::RunSession::Open(begun, &error);
    ASSERT_TRUE(parent) << error;
    run = parent->run_id();
  }
  TracerConfig config;
  config.db_path = db;
  config.run_id = run;
  config.suppressions = dir + "/supp.txt";
  config.capture_stacks = false;
  {
    Tracer tracer(config);
    EmitTwoRaces(tracer);
    tracer.Finish();
  }
  std::string error;
  auto store = store::Store::Open(db, &error, {.read_only = true});
  ASSERT_TRUE(store) << error;
  std::map<std::string, std::map<std::string, uint64_t>> counters;
  ASSERT_TRUE(store::ReadCounters(*store, run, &counters, &error)) << error;
  EXPECT_EQ(counters["stats"]["findings"], 1u);
  EXPECT_EQ(counters["stats"]["suppressed"], 1u);
  EXPECT_EQ(counters["stats"]["finding_occurrences"], 1u) << "of the kept finding only";
  // This binary runs without the preloaded library: host threads in trace order.
  ASSERT_TRUE(counters["host_threads"].count("ordered_by_observed_synchronization"));
  EXPECT_EQ(counters["host_threads"]["ordered_by_observed_synchronization"], 0u);
  std::vector<store::StoredRun> runs;
  ASSERT_TRUE(store::ReadRuns(*store, &runs, &error));
  EXPECT_EQ(runs.size(), 1u) << "joined, not a run of its own";
  std::vector<store::StoredProcess> processes;
  ASSERT_TRUE(store::ReadProcesses(*store, run, &processes, &error));
  ASSERT_EQ(processes.size(), 1u);
  EXPECT_EQ(processes[0].info.pid, getpid());
  EXPECT_EQ(processes[0].info.host, store::HostName());
  std::vector<store::StoredFinding> findings;
  ASSERT_TRUE(store::ReadFindings(*store, {run, ""}, &findings, &error));
  ASSERT_EQ(findings.size(), 1u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace streamcheck::tracer
