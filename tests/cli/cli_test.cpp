// End-to-end tests of the `streamcheck` binary: bundled traces replayed with
// their expected findings, exit codes, and bad input (corrupt or truncated
// traces keep the findings made before the damage and name the byte offset).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/trace/trace_io.h"
#include "tests/cli/cli_helpers.h"
#include "tests/common/run_command.h"
#include "store/reader.h"
#include "store/store.h"

namespace streamcheck {
namespace {

namespace fs = std::filesystem;

using Result = testing::CommandResult;

using cli_testing::StoredFindings;
using cli_testing::Streamcheck;
using cli_testing::TempPath;

// One expected finding: rule, kind, substrings of both operations (kernel,
// API or framework op; the second `-` for a finding of one operation), and
// optionally `stack=FILE`: both accesses' stacks have a frame in FILE (the
// user's Python file for PyTorch programs).
struct Expected {
  std::string rule, kind, earlier, later, stack_file;
};

std::vector<Expected> LoadExpectations(const fs::path& path) {
  std::vector<Expected> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    Expected e;
    fields >> e.rule >> e.kind >> e.earlier >> e.later;
    for (std::string option; fields >> option;)
      if (option.rfind("stack=", 0) == 0) e.stack_file = option.substr(6);
    out.push_back(e);
  }
  return out;
}

bool Names(const FindingAccess& a, const std::string& what) {
  return a.op.find(what) != std::string::npos || a.api.find(what) != std::string::npos ||
         a.framework_op.find(what) != std::string::npos;
}

bool HasFrameIn(const FindingAccess& a, const std::string& file) {
  for (const ResolvedFrame& f : a.stack)
    if (f.file.find(file) != std::string::npos) return true;
  return false;
}

bool Matches(const Finding& f, const Expected& e) {
  if (e.later == "-")  // a finding of one operation (pageable-async-copy, wait-on-unrecorded-event)
    return f.rule == e.rule && FindingKindName(f.kind) == e.kind && f.accesses.size() == 1 &&
           Names(f.accesses[0], e.earlier) && (e.stack_file.empty() || HasFrameIn(f.accesses[0], e.stack_file));
  if (f.rule != e.rule || FindingKindName(f.kind) != e.kind || f.accesses.size() < 2) return false;
  if (!e.stack_file.empty() && !(HasFrameIn(f.accesses[0], e.stack_file) && HasFrameIn(f.accesses[1], e.stack_file)))
    return false;
  return Names(f.accesses[0], e.earlier) && Names(f.accesses[1], e.later);
}

// Every trace under testdata/ with a .expect file beside it.
std::vector<fs::path> ExpectedTraces() {
  std::vector<fs::path> out;
  for (const char* dir : {"testdata/examples", "testdata/traces", "testdata/rules"}) {
    const fs::path root = fs::path(STREAMCHECK_SOURCE_DIR) / dir;
    if (!fs::exists(root)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root))
      if (entry.path().extension() == ".expect") out.push_back(entry.path());
  }
  return out;
}

TEST(Replay, BundledTracesGiveTheirExpectedFindings) {
  const auto expectations = ExpectedTraces();
  ASSERT_GE(expectations.size(), 2u) << "bundled traces with expectations are missing";
  for (const fs::path& expect : expectations) {
    fs::path trace = expect;
    trace.replace_extension();  // drop ".expect"
    SCOPED_TRACE(trace.string());
    const std::string db = TempPath(trace.filename().string() + ".db");
    fs::remove(db);
    Result r = Streamcheck("replay --db " + db + " " + trace.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::vector<Finding> found = StoredFindings(db);
    const std::vector<Expected> wanted = LoadExpectations(expect);
    EXPECT_EQ(found.size(), wanted.size()) << r.output;
    for (const Expected& e : wanted) {
      bool hit = false;
      for (const Finding& f : found) hit = hit || Matches(f, e);
      EXPECT_TRUE(hit) << "missing: " << e.rule << " " << e.kind << " " << e.earlier << " -> " << e.later
                       << "\n" << r.output;
    }
  }
}

TEST(Replay, ErrorExitcodeOnlyWhenThereAreFindings) {
  const std::string racy = std::string(STREAMCHECK_SOURCE_DIR) + "/testdata/examples/two_streams.trace.txt";
  EXPECT_EQ(Streamcheck("replay --no-db --error-exitcode 7 " + racy).exit_code, 7);
  EXPECT_EQ(Streamcheck("replay --no-db " + racy).exit_code, 0);
  const std::string clean = TempPath("clean.trace.txt");
  std::ofstream(clean) << "stream_create thread=1 stream=0x10\nkernel_launch thread=1 stream=0x10 access=0x1000+4:write\n";
  EXPECT_EQ(Streamcheck("replay --no-db --error-exitcode 7 " + clean).exit_code, 0);
}

TEST(Replay, UsageErrorsExitTwo) {
  EXPECT_EQ(Streamcheck("replay --no-db /nonexistent/trace.sctrace").exit_code, 2);
  EXPECT_EQ(Streamcheck("replay").exit_code, 2);
  EXPECT_EQ(Streamcheck("frobnicate").exit_code, 2);
  EXPECT_EQ(Streamcheck("rules no-such-rule").exit_code, 2);
  EXPECT_EQ(Streamcheck("--help").exit_code, 0);
}

TEST(Replay, TextTraceErrorNamesTheLine) {
  const std::string bad = TempPath("bad.trace.txt");
  std::ofstream(bad) << "stream_create thread=1 stream=0x10\nkernel_launch thread=1 sream=0x10\n";
  Result r = Streamcheck("replay --no-db " + bad);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find(":2:"), std::string::npos) << r.output;
}

// A binary trace written in small blocks, then cut short or damaged: the
// findings from the intact blocks must still be stored.
TEST(Replay, DamagedBinaryTraceKeepsEarlierFindingsAndNamesTheOffset) {
  std::vector<TraceRecord> records;
  std::string error;
  std::ifstream in(std::string(STREAMCHECK_SOURCE_DIR) + "/testdata/examples/two_streams.trace.txt");
  std::stringstream text;
  text << in.rdbuf();
  ASSERT_TRUE(ParseTextTrace(text.str(), &records, &error)) << error;
  // Find where the first race is complete, and add more records after it.
  std::string bytes;
  auto writer = CreateBinaryTraceWriter(&bytes, BinaryWriterOptions{.block_bytes = 64});
  for (const TraceRecord& r : records) writer->Append(r);
  for (int i = 0; i < 50; ++i) writer->Append(records.back());
  writer->Close();

  for (const char* damage : {"truncate", "flip"}) {
    SCOPED_TRACE(damage);
    std::string damaged = bytes;
    const size_t at = bytes.size() - 40;  // inside the last blocks
    if (std::string(damage) == "truncate") damaged.resize(at);
    else damaged[at] ^= 0x5a;
    const std::string path = TempPath(std::string("damaged_") + damage + ".sctrace");
    std::ofstream(path, std::ios::binary) << damaged;
    const std::string db = TempPath(std::string("damaged_") + damage + ".db");
    fs::remove(db);
    Result r = Streamcheck("replay --db " + db + " " + path);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("offset"), std::string::npos) << r.output;
    EXPECT_EQ(StoredFindings(db).size(), 2u) << r.output;
  }
}

// The tracer defines a stack by program counters when first seen and again,
// symbolized, at exit: findings made in between must get the symbolized frames.
TEST(Replay, LateStackDefinitionsSymbolizeEarlierFindings) {
  const std::string trace = TempPath("late_stacks.trace.txt");
  std::ofstream(trace) << "define_stack id=7 frame=0:0:0:0x401234\n"
                          "stream_create thread=1 stream=0x10 flags=0x1\n"
                          "stream_create thread=1 stream=0x20 flags=0x1\n"
                          "malloc thread=1 dst=0x1000 size=64\n"
                          "kernel_launch thread=1 stream=0x10 name=\"w\" stack=7 access=0x1000+64:write\n"
                          "kernel_launch thread=1 stream=0x20 name=\"r\" stack=7 access=0x1000+64:read\n"
                          "define_stack id=7 frame=\"launch_all\":\"late.cu\":42:0x401234\n";
  const std::string db = TempPath("late_stacks.db");
  fs::remove(db);
  Result r = Streamcheck("replay --db " + db + " " + trace);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<Finding> found = StoredFindings(db);
  ASSERT_EQ(found.size(), 1u) << r.output;
  ASSERT_FALSE(found[0].accesses[0].stack.empty());
  EXPECT_EQ(found[0].accesses[0].stack[0].function, "launch_all");
  EXPECT_EQ(found[0].accesses[0].stack[0].file, "late.cu");
  EXPECT_EQ(found[0].accesses[0].stack[0].line, 42u);
}

// `run` without CUDA in the program: the exit status passes through, and the
// _exit() hook is preloaded ahead of the program's own LD_PRELOAD, which stays.
// The counters mean after replay what they mean after run (store/counters.def):
// `findings` counts the kept findings, `suppressed` the dropped ones.
TEST(Replay, CountersCountFindingsAfterSuppressionAsRunDoes) {
  const std::string trace = std::string(STREAMCHECK_SOURCE_DIR) + "/testdata/examples/two_streams.trace.txt";
  const std::string db = TempPath("counters.db");
  fs::remove(db);
  const std::string suppressions = TempPath("counters.supp");
  std::ofstream(suppressions) << "host-device-race -- the host read is known\n";
  auto replay = Streamcheck("replay -q --db " + db + " --suppressions " + suppressions + " " + trace);
  ASSERT_EQ(replay.exit_code, 0) << replay.output;
  EXPECT_NE(replay.output.find("1 finding (1 occurrences), 1 suppressed"), std::string::npos) << replay.output;
  std::string error;
  auto store = store::Store::Open(db, &error, {.read_only = true});
  ASSERT_TRUE(store) << error;
  std::map<std::string, std::map<std::string, uint64_t>> counters;
  ASSERT_TRUE(store::ReadCounters(*store, 1, &counters, &error)) << error;
  EXPECT_EQ(counters["stats"]["findings"], 1u);
  EXPECT_EQ(counters["stats"]["suppressed"], 1u);
  EXPECT_EQ(StoredFindings(db).size(), 1u);
}

TEST(Run, PassesTheExitStatusAndPreloadsTheExitHook) {
  const std::string db = TempPath("run.db");
  Result r = Streamcheck("run -q --db " + db + " -- sh -c 'exit 7'");
  EXPECT_EQ(r.exit_code, 7) << r.output;
  r = Streamcheck("run -q --db " + db + " -- sh -c 'echo \"preload=$LD_PRELOAD\"'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("libstreamcheck_preload.so"), std::string::npos) << r.output;
  r = Streamcheck("run -q --db " + db + " -- env LD_PRELOAD=libmine.so sh -c 'echo \"preload=$LD_PRELOAD\"'");
  EXPECT_NE(r.output.find("preload=libmine.so"), std::string::npos) << r.output;  // what the program sets wins
  r = testing::RunCommand("LD_PRELOAD=libmine.so " + std::string(STREAMCHECK_BINARY) + " run -q --db " + db +
                         " -- sh -c 'echo \"preload=$LD_PRELOAD\"' 2>&1");
  EXPECT_NE(r.output.find("libstreamcheck_preload.so:libmine.so"), std::string::npos) << r.output;
}

// A job's ranks under `run` (tests/cli/fake_ranks.cpp stands in for their
// tracers): the race both ranks found is one finding with the ranks listed,
// the database holds both, which is what the traced processes kept (no
// failed-write error), and NCCL's own work is counted, not reported.
TEST(Run, TheSameRaceOnTwoRanksIsOneFindingAndEveryKeptOneIsStored) {
  const std::string db = TempPath("ranks.db");
  fs::remove(db);
  Result r = Streamcheck("run --db " + db + " -- " FAKE_RANKS " 0 1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("  on ranks 0, 1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("streamcheck: 1 finding (2 occurrences) in run 1"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("were stored"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("streamcheck: not reported, a library's own work: nccl: wait-on-unrecorded-event "
                          "(2 findings)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(StoredFindings(db).size(), 2u);
}

// What only the tracers know, in run's summary: their host guards were off,
// and synchronization objects shared a release stamp (tests/cli/fake_ranks.cpp
// writes the counters as the tracer does).
TEST(Run, TheSummarySaysWhatTheTracersCouldNotObserve) {
  const std::string db = TempPath("observed.db");
  fs::remove(db);
  Result r = Streamcheck("run --no-host-guards --db " + db + " -- env FAKE_SHARED_STAMPS=3 " FAKE_RANKS " 0 1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("streamcheck: host accesses not observed: guard pages off (--no-host-guards) (2 processes)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("streamcheck: 6 synchronization objects beyond the preloaded library's table shared one "
                          "release stamp"),
            std::string::npos)
      << r.output;
  fs::remove(db);
  r = Streamcheck("run --db " + db + " -- " FAKE_RANKS " 0");
  EXPECT_EQ(r.output.find("not observed"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("release stamp"), std::string::npos) << r.output;
}

// --no-host-guards reaches the tracer (tracer/host/host_guards.h) through the environment.
TEST(Run, NoHostGuardsTellsTheTracer) {
  const std::string db = TempPath("guards.db");
  Result r = Streamcheck("run -q --no-host-guards --db " + db + " -- sh -c 'echo \"guards=$STREAMCHECK_HOST_GUARDS\"'");
  EXPECT_NE(r.output.find("guards=0"), std::string::npos) << r.output;
  r = Streamcheck("run -q --db " + db + " -- sh -c 'echo \"guards=$STREAMCHECK_HOST_GUARDS.\"'");
  EXPECT_NE(r.output.find("guards=."), std::string::npos) << r.output;
}

// The switches come from tracer/debug/debug_switches.def, listed by
// --help-debug apart from the options --help shows; a misspelt one is named,
// not silently ignored.
TEST(Run, HelpDebugListsEveryDebugSwitchAndAnUnknownOneIsNamed) {
  Result help = Streamcheck("run --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_EQ(help.output.find("stack-cache-verify"), std::string::npos) << help.output;
  EXPECT_NE(help.output.find("--help-debug"), std::string::npos) << help.output;
  Result r = Streamcheck("run --help-debug");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("STREAMCHECK_FRAMEWORKS"), std::string::npos) << r.output;
  for (const char* name : {"launch", "callbacks-only", "profile", "launch-timing", "stack-cache-verify",
                           "no-block-events", "inline-analysis", "drop-records", "skip-analysis"})
    EXPECT_NE(r.output.find(std::string("\n  ") + name + " "), std::string::npos) << name << "\n" << r.output;
  r = testing::RunCommand("STREAMCHECK_DEBUG=profil,launch " + std::string(STREAMCHECK_BINARY) + " run -q --db " +
                          TempPath("debug.db") + " -- true 2>&1");
  EXPECT_NE(r.output.find("no switch is named 'profil'"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("named 'launch'"), std::string::npos) << r.output;
}

// A trace recorded in another checkout: `trace convert --path-map` rewrites
// the files it names, and `report --path-map` shows a database's files
// under the reader's paths (issue 41).
TEST(PathMap, TraceConvertAndReportRewriteRecordedPaths) {
  const std::string text = TempPath("elsewhere.trace.txt");
  {
    std::ofstream out(text);
    out << "define_stack id=1 frame=\"main\":\"/ci/build/src/app.cu\":7\n"
           "stream_create thread=1 stream=0x10 flags=0x1 api=\"cudaStreamCreateWithFlags\" stack=1\n"
           "stream_create thread=1 stream=0x20 flags=0x1 api=\"cudaStreamCreateWithFlags\" stack=1\n"
           "malloc thread=1 dst=0x1000 size=4096 api=\"cudaMalloc\" stack=1\n"
           "memset thread=1 stream=0x10 dst=0x1000 size=4096 async=1 api=\"cudaMemsetAsync\" stack=1\n"
           "memset thread=1 stream=0x20 dst=0x1000 size=4096 async=1 api=\"cudaMemsetAsync\" stack=1\n";
  }
  const std::string converted = TempPath("here.sctrace");
  Result r = Streamcheck("trace convert --path-map /ci/build= --to binary " + text + " " + converted);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = Streamcheck("trace dump " + converted);
  EXPECT_NE(r.output.find("\"src/app.cu\""), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("/ci/build"), std::string::npos) << r.output;

  const std::string db = TempPath("elsewhere.db");
  r = Streamcheck("replay -q --db " + db + " " + text);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = Streamcheck("report --format summary --path-map /ci/build=/home/me/app " + db);
  EXPECT_EQ(r.output.rfind("/home/me/app/src/app.cu:7: ", 0), 0u) << r.output;
  EXPECT_EQ(r.output.find("/ci/build"), std::string::npos) << r.output;
  r = Streamcheck("report --path-map nothing " + db);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--path-map 'nothing' is not OLD=NEW"), std::string::npos) << r.output;
}

TEST(Rules, ListsEveryRuleAndPrintsItsPage) {
  Result list = Streamcheck("rules");
  EXPECT_EQ(list.exit_code, 0);
  for (const char* id : {"cross-stream-race", "host-device-race", "free-while-in-use", "use-after-free",
                         "wait-on-unrecorded-event", "unsynchronized-timing", "pageable-async-copy"})
    EXPECT_NE(list.output.find(id), std::string::npos) << id;
  Result page = Streamcheck("rules cross-stream-race");
  EXPECT_EQ(page.exit_code, 0);
  EXPECT_NE(page.output.find("## Fix"), std::string::npos) << page.output;
}

}  // namespace
}  // namespace streamcheck
