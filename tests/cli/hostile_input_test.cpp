// Issue 29's reproducers against the `streamcheck` binary: names that are
// not text, outputs that are inputs, full disks, held locks, read-only
// folders, broken stdout, and the small usage holes. Each checks that
// nothing is lost, nothing false is claimed, and the exit code says so.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "store/database.h"
#include "store/reader.h"
#include "store/store.h"
#include "tests/cli/hostile_input_helpers.h"
#include "tests/common/run_command.h"

namespace streamcheck {
namespace {

using namespace hostile;  // NOLINT: the suite's helpers

namespace fs = std::filesystem;

TEST(HostileInput, NamesThatAreNotTextNeverAbortAReport) {
  Scratch s;
  // A kernel name with an invalid UTF-8 byte, an ESC sequence and a newline
  // that fakes a diagnostic; a NUL in the other; file names with spaces and
  // invalid bytes.
  WriteAll(s.File("hostile.txt"),
           "stream_create thread=1 stream=0x55 flags=0x1 api=\"cudaStreamCreateWithFlags\"\n"
           "stream_create thread=1 stream=0x66 flags=0x1 api=\"cudaStreamCreateWithFlags\"\n"
           "define_stack id=1 frame=\"main\":\"src dir/a\\xfe.cu\":1\n"
           "define_stack id=2 frame=\"main\":\"/proc/self/environ\":1 frame=\"main\":\"/etc/passwd\":1\n"
           "malloc thread=1 dst=0x1000 size=64 memory_kind=device api=\"cudaMalloc\"\n"
           "unmodeled_api thread=1 api=\"cudaX\\x1b[31m\"\n"
           "kernel_launch thread=1 stream=0x55 name=\"k\\xff\\x1b[31m\\nfake.cu:1: error: x\" "
           "api=\"cudaLaunchKernel\" access=0x1000+64:write stack=1\n"
           "kernel_launch thread=1 stream=0x66 name=\"r\\0tail\" api=\"cudaLaunchKernel\" "
           "access=0x1000+64:read stack=2\n");
  const std::string db = s.File("h.db");
  auto replay = Streamcheck("replay --db " + db + " " + s.File("hostile.txt"));
  EXPECT_EQ(replay.exit_code, 0) << replay.output;
  EXPECT_EQ(replay.output.find('\x1b'), std::string::npos) << "escape sequences are shown escaped";
  EXPECT_NE(replay.output.find("k\\xff\\x1b[31m\\nfake.cu:1: error: x"), std::string::npos) << replay.output;

  for (const char* format : {"json", "sarif"}) {
    auto report = StreamcheckOut("report " + db + " --format " + format);
    ASSERT_EQ(report.exit_code, 0) << format;
    nlohmann::json doc;
    ASSERT_NO_THROW(doc = nlohmann::json::parse(report.output)) << format;
    EXPECT_NE(report.output.find("k\xef\xbf\xbd"), std::string::npos) << "U+FFFD for the invalid byte";
  }
  auto sarif = StreamcheckOut("report " + db + " --format sarif");
  EXPECT_NE(sarif.output.find("\"uri\": \"src%20dir/a%FE.cu\""), std::string::npos) << "percent-encoded, bytes kept";
  auto json = StreamcheckOut("report " + db + " --format json");
  EXPECT_NE(json.output.find("r\\u0000tail"), std::string::npos) << "the NUL kept, not a truncated name";
  for (const char* format : {"text", "summary", "html"}) {
    auto report = StreamcheckOut("report " + db + " --format " + format);
    ASSERT_EQ(report.exit_code, 0) << format;
    EXPECT_EQ(report.output.find('\x1b'), std::string::npos) << format;
    EXPECT_EQ(report.output.find("\nfake.cu:1: error"), std::string::npos) << format << ": no faked line";
    EXPECT_NE(report.output.find("\\xff"), std::string::npos) << format;
  }
  // Frames naming system files quote nothing of them (the reporting
  // process's environment, the password file).
  auto html = testing::RunCommand("STREAMCHECK_TEST_SECRET=hunter2 " + std::string(STREAMCHECK_BINARY) + " report " +
                                  db + " --format html --source-root / --source-root /proc/self 2>/dev/null");
  ASSERT_EQ(html.exit_code, 0);
  EXPECT_NE(html.output.find("/proc/self/environ"), std::string::npos) << "the frame is shown";
  EXPECT_EQ(html.output.find("hunter2"), std::string::npos) << "its file is not";
  EXPECT_EQ(html.output.find("root:x:0"), std::string::npos);
}

TEST(HostileInput, ReportOntoItsInputIsRefusedAndChangesNothing) {
  Scratch s;
  const std::string db = MakeDatabase(s);
  const std::string base = MakeDatabase(s, "base.db");
  const std::string db_bytes = ReadAll(db), base_bytes = ReadAll(base);
  auto onto_db = Streamcheck("report " + db + " -o " + db);
  EXPECT_EQ(onto_db.exit_code, 2) << onto_db.output;
  EXPECT_NE(onto_db.output.find("is the database it reads"), std::string::npos) << onto_db.output;
  auto onto_baseline = Streamcheck("report " + db + " --baseline " + base + " -o " + base);
  EXPECT_EQ(onto_baseline.exit_code, 2) << onto_baseline.output;
  // Through another name of the same file too.
  fs::create_symlink(db, s.File("alias.db"));
  EXPECT_EQ(Streamcheck("report " + db + " -o " + s.File("alias.db")).exit_code, 2);
  EXPECT_TRUE(ReadAll(db) == db_bytes);
  EXPECT_TRUE(ReadAll(base) == base_bytes);
  EXPECT_EQ(FindingsIn(db), 1);

  // A failing report leaves an existing output as it was.
  WriteAll(s.File("out.txt"), "keep me");
  EXPECT_EQ(Streamcheck("report " + db + " --rule no-such-rule -o " + s.File("out.txt")).exit_code, 2);
  EXPECT_EQ(Streamcheck("report " + s.File("missing.db") + " -o " + s.File("out.txt")).exit_code, 2);
  EXPECT_EQ(ReadAll(s.File("out.txt")), "keep me");
  // A good one replaces it whole, and leaves no temporary file behind.
  EXPECT_EQ(Streamcheck("report " + db + " --format json -o " + s.File("out.txt")).exit_code, 0);
  EXPECT_EQ(ReadAll(s.File("out.txt")).front(), '{');
  for (const auto& entry : fs::directory_iterator(s.path()))
    EXPECT_NE(entry.path().filename().string().front(), '.') << "a temporary file was left: " << entry.path();
}

TEST(HostileInput, MergeNeverWritesOntoAnInputAndIsAllOrNothing) {
  Scratch s;
  const std::string a = MakeDatabase(s, "a.db");
  const std::string a_bytes = ReadAll(a);
  EXPECT_EQ(Streamcheck("merge " + a + " " + a).exit_code, 2);
  EXPECT_TRUE(ReadAll(a) == a_bytes);
  // The second input is not a database: the output keeps nothing of the first.
  const std::string out = MakeDatabase(s, "out.db");
  WriteAll(s.File("junk.db"), std::string(4096, 'x'));
  auto merge = Streamcheck("merge " + out + " " + a + " " + s.File("junk.db"));
  EXPECT_EQ(merge.exit_code, 2) << merge.output;
  EXPECT_EQ(FindingsIn(out), 1);
  // A new output that failed is not left behind.
  EXPECT_EQ(Streamcheck("merge " + s.File("new.db") + " " + a + " " + s.File("junk.db")).exit_code, 2);
  EXPECT_FALSE(fs::exists(s.File("new.db")));
}

// A small tmpfs where this machine lets the test mount one (root, not in a
// locked-down container); else nothing, and the test says so.
bool MountSmallDisk(const std::string& dir, const char* size) {
  return ::mount("tmpfs", dir.c_str(), "tmpfs", 0, (std::string("size=") + size).c_str()) == 0;
}

// What a full disk must give: exit 2, one error, and a claimed count that is
// the database's. `prefix` runs the command on the full disk.
void ExpectFullDiskHandled(const Scratch& s, const std::string& prefix, const std::string& db) {
  auto replay = testing::RunCommand(prefix + std::string(STREAMCHECK_BINARY) + " replay -q --db " + db + " " +
                                    s.File("many.txt") + " 2>&1");
  EXPECT_EQ(replay.exit_code, 2) << replay.output;
  EXPECT_NE(replay.output.find("full"), std::string::npos) << replay.output;
  EXPECT_EQ(replay.output.find("fullcannot"), std::string::npos) << "one error, not two run together";
  const int64_t stored = FindingsIn(db);
  if (stored < 0) {  // not even the schema fitted: nothing may be claimed
    EXPECT_EQ(replay.output.find("stored in"), std::string::npos) << replay.output;
    return;
  }
  EXPECT_LT(stored, 400);
  EXPECT_NE(replay.output.find(std::to_string(stored) + " of 400 findings were stored"), std::string::npos)
      << replay.output;
}

TEST(HostileInput, AFullDiskIsReportedAndNothingFalseIsClaimed) {
  Scratch s;
  WriteAll(s.File("many.txt"), RacesTrace(400));
  const std::string disk = s.File("disk");
  fs::create_directories(disk);
  if (!MountSmallDisk(disk, "192k")) GTEST_SKIP() << "cannot mount a tmpfs here; InjectedFullDisk covers it";
  s.Mounted(disk);
  ExpectFullDiskHandled(s, "", disk + "/full.db");

  // A report that does not fit leaves the old file as it was.
  ::umount2(disk.c_str(), MNT_DETACH);
  const std::string big_db = s.File("big.db");
  ASSERT_EQ(Streamcheck("replay -q --db " + big_db + " " + s.File("many.txt")).exit_code, 0);
  ASSERT_TRUE(MountSmallDisk(disk, "64k"));
  s.Mounted(disk);
  WriteAll(disk + "/report.json", "old report");
  auto report = Streamcheck("report " + big_db + " --format json -o " + disk + "/report.json");
  EXPECT_EQ(report.exit_code, 2) << report.output;
  EXPECT_NE(report.output.find("left as it was"), std::string::npos) << report.output;
  EXPECT_EQ(ReadAll(disk + "/report.json"), "old report");
}

// The same with the write failures injected (tests/common/full_disk_shim.c),
// which works where no disk can be mounted.
TEST(HostileInput, InjectedFullDiskIsReportedAndNothingFalseIsClaimed) {
  Scratch s;
  WriteAll(s.File("many.txt"), RacesTrace(400));
  const std::string disk = s.File("disk");
  fs::create_directories(disk);
  const std::string full = "LD_PRELOAD=" + std::string(FULL_DISK_SHIM) + " STREAMCHECK_TEST_FULL_DIR=" + disk +
                           " STREAMCHECK_TEST_FULL_AFTER=";
  ExpectFullDiskHandled(s, full + "150000 ", disk + "/full.db");

  const std::string big_db = s.File("big.db");
  ASSERT_EQ(Streamcheck("replay -q --db " + big_db + " " + s.File("many.txt")).exit_code, 0);
  WriteAll(disk + "/report.json", "old report");
  auto report = testing::RunCommand(full + "20000 " + std::string(STREAMCHECK_BINARY) + " report " + big_db +
                                    " --format json -o " + disk + "/report.json 2>&1");
  EXPECT_EQ(report.exit_code, 2) << report.output;
  EXPECT_NE(report.output.find("No space left on device"), std::string::npos) << report.output;
  EXPECT_EQ(ReadAll(disk + "/report.json"), "old report");
}

TEST(HostileInput, ADroppedTableIsRefusedBeforeWriting) {
  Scratch s;
  const std::string db = MakeDatabase(s);
  {
    std::string error;
    store::Database raw(db, false, false, &error);
    ASSERT_TRUE(raw.Exec("DROP TABLE counters")) << raw.error();
  }
  auto replay = Streamcheck("replay --db " + db + " " + s.File("one.txt"));
  EXPECT_EQ(replay.exit_code, 2) << replay.output;
  EXPECT_NE(replay.output.find("table 'counters' is missing"), std::string::npos) << replay.output;
  EXPECT_EQ(replay.output.find("stored in"), std::string::npos) << replay.output;
  EXPECT_EQ(FindingsIn(db), -1) << "report refuses it too";
}

TEST(HostileInput, WriteErrorsOnStandardOutputExitTwo) {
  Scratch s;
  const std::string db = MakeDatabase(s);
  for (const std::string& args : {std::string("rules"), std::string("--help"), std::string("report --help"),
                                  "replay --no-db " + s.File("one.txt"), "report " + db,
                                  "report " + db + " --format json", "trace dump " + s.File("one.txt")}) {
    auto full = testing::RunCommand(std::string(STREAMCHECK_BINARY) + " " + args + " >/dev/full 2>/dev/null");
    EXPECT_EQ(full.exit_code, 2) << args;
  }
  auto report = Streamcheck("report " + db + " -o /dev/full");
  EXPECT_EQ(report.exit_code, 2) << report.output;
  // Standard error too: replay's summary goes there.
  auto to_stderr = testing::RunCommand(std::string(STREAMCHECK_BINARY) + " replay --no-db " + s.File("one.txt") +
                                       " >/dev/null 2>/dev/full");
  EXPECT_EQ(to_stderr.exit_code, 2);
  // A closed pipe: the reader is gone before anything is written.
  auto closed = testing::RunCommand("bash -c '(sleep 0.3; exec " + std::string(STREAMCHECK_BINARY) +
                                    " rules 2>/dev/null) | true; echo rc=${PIPESTATUS[0]}'");
  EXPECT_NE(closed.output.find("rc=2"), std::string::npos) << closed.output;
}

TEST(HostileInput, AHeldLockSaysLockedAndWhatWasStored) {
  Scratch s;
  const std::string db = MakeDatabase(s);
  std::string error;
  store::Database holder(db, false, false, &error);
  ASSERT_TRUE(holder.Exec("BEGIN IMMEDIATE")) << holder.error();
  auto replay = Streamcheck("replay --busy-timeout 100 --db " + db + " " + s.File("one.txt"));
  EXPECT_EQ(replay.exit_code, 2) << replay.output;
  EXPECT_NE(replay.output.find("locked"), std::string::npos) << replay.output;
  EXPECT_EQ(replay.output.find("cannot migrate"), std::string::npos) << replay.output;
  EXPECT_EQ(replay.output.find("stored in"), std::string::npos) << replay.output;
  holder.Exec("ROLLBACK");
  EXPECT_EQ(FindingsIn(db), 1);
}

TEST(HostileInput, ADamagedDatabaseIsRefusedBeforeWriting) {
  Scratch s;
  const std::string db = MakeDatabase(s);
  // Damage a page past the header: the file still opens, its pages do not check.
  std::string bytes = ReadAll(db);
  ASSERT_GT(bytes.size(), 8192u);
  for (size_t page = 1; page < 4; ++page)
    for (size_t i = page * 4096; i < page * 4096 + 12; ++i) bytes[i] = '\x5a';
  WriteAll(db, bytes);
  auto replay = Streamcheck("replay --db " + db + " " + s.File("one.txt"));
  EXPECT_EQ(replay.exit_code, 2) << replay.output;
  EXPECT_NE(replay.output.find("corrupt"), std::string::npos) << replay.output;
  EXPECT_EQ(replay.output.find("stored in"), std::string::npos) << replay.output;
  EXPECT_TRUE(ReadAll(db) == bytes) << "left as it was";
}

// Whether `dir` could be made a read-only mount of itself.
bool MakeReadOnlyMount(const std::string& dir) {
  if (::mount(dir.c_str(), dir.c_str(), nullptr, MS_BIND, nullptr) != 0) return false;
  if (::mount(nullptr, dir.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY, nullptr) == 0) return true;
  ::umount2(dir.c_str(), MNT_DETACH);
  return false;
}

TEST(HostileInput, ReadOnlyDatabasesAreReadByReportMergeAndBaseline) {
  Scratch s;
  const std::string ro = s.File("ro");
  fs::create_directories(ro);
  WriteAll(s.File("one.txt"), RacesTrace(1));
  ASSERT_EQ(Streamcheck("replay -q --db " + ro + "/a.db " + s.File("one.txt")).exit_code, 0);
  const bool mounted = MakeReadOnlyMount(ro);
  if (mounted) s.Mounted(ro);
  if (!mounted) {
    // Not allowed to mount: a folder without write permission does for a
    // user other than root.
    if (::geteuid() == 0) GTEST_SKIP() << "cannot make a read-only mount here";
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
  }
  auto report = Streamcheck("report " + ro + "/a.db --format summary");
  EXPECT_EQ(report.exit_code, 0) << report.output;
  EXPECT_NE(report.output.find("1 finding"), std::string::npos) << report.output;
  auto baseline = Streamcheck("report " + ro + "/a.db --baseline " + ro + "/a.db --error-exitcode 1");
  EXPECT_EQ(baseline.exit_code, 0) << baseline.output;
  auto merge = Streamcheck("merge " + s.File("merged.db") + " " + ro + "/a.db");
  EXPECT_EQ(merge.exit_code, 0) << merge.output;
  EXPECT_EQ(FindingsIn(s.File("merged.db")), 1);
  // Writing into the read-only folder fails with a reason.
  auto into = Streamcheck("merge " + ro + "/a.db " + s.File("merged.db"));
  EXPECT_EQ(into.exit_code, 2) << into.output;
  EXPECT_NE(into.output.find("cannot write: the file is read-only"), std::string::npos) << into.output;
  EXPECT_EQ(into.output.find("failed: ;"), std::string::npos) << "a reason, not an empty one: " << into.output;
  ::umount2(ro.c_str(), MNT_DETACH);
}

TEST(HostileInput, SmallUsageHoles) {
  Scratch s;
  const std::string db = MakeDatabase(s);
  auto run_minus_one = Streamcheck("report " + db + " --run -1");
  EXPECT_EQ(run_minus_one.exit_code, 2) << run_minus_one.output;
  EXPECT_EQ(Streamcheck("report " + db + " --run -5").exit_code, 2);
  EXPECT_EQ(Streamcheck("report " + db + " --run last").exit_code, 0);
  for (const char* command : {"replay --no-db", "report"}) {
    const std::string target = std::string(command) == "report" ? db : s.File("one.txt");
    auto big = Streamcheck(std::string(command) + " " + target + " --error-exitcode 300");
    EXPECT_EQ(big.exit_code, 2) << command << ": " << big.output;
  }
  fs::create_directories(s.File("suppressions.d"));
  auto dir = Streamcheck("replay --no-db --suppressions " + s.File("suppressions.d") + " " + s.File("one.txt"));
  EXPECT_EQ(dir.exit_code, 2) << dir.output;
  EXPECT_NE(dir.output.find("is a directory"), std::string::npos) << dir.output;
  auto trace_onto_db = Streamcheck("run --db " + db + " --trace " + db + " -- true");
  EXPECT_EQ(trace_onto_db.exit_code, 2) << trace_onto_db.output;
  EXPECT_EQ(FindingsIn(db), 1) << "the database is untouched";
  auto unknown = Streamcheck("frobnicate");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.output.find("unknown command 'frobnicate'"), std::string::npos) << unknown.output;
  // An access whose end wraps past 2^64 is damage, with its place.
  WriteAll(s.File("wrap.txt"), "kernel_launch thread=1 stream=0x55 access=0xffffffffffffff00+512:write\n");
  auto wrap = Streamcheck("replay --no-db " + s.File("wrap.txt"));
  EXPECT_EQ(wrap.exit_code, 2) << wrap.output;
  EXPECT_NE(wrap.output.find("wraps past 2^64"), std::string::npos) << wrap.output;
}

}  // namespace
}  // namespace streamcheck

namespace streamcheck {
namespace {

using namespace hostile;  // NOLINT: the suite's helpers

// JSON and SARIF are written as the findings are read: memory does not grow
// with their number (30,000 findings took 966 MB of JSON and 1.48 GB of SARIF
// before; now some 7 MB).
TEST(HostileInput, ReportsOfManyFindingsStayInBoundedMemory) {
  Scratch s;
  const std::string db = s.File("many.db");
  {
    std::string error;
    auto store = store::Store::Open(db, &error);
    ASSERT_TRUE(store) << error;
    const int64_t run = store->BeginRun({.mode = "replay", .command = "many"});
    ASSERT_TRUE(store->database().Exec("BEGIN"));
    Finding f;
    f.rule = "cross-stream-race";
    f.message = std::string(2000, 'm');  // some 6 KB a finding with the stacks below
    FindingAccess a;
    a.op = "kernel";
    for (int depth = 0; depth < 20; ++depth) a.stack.push_back({"function_" + std::to_string(depth), "/src/f.cu", 1, 0, 0});
    f.accesses = {a, a};
    for (int i = 0; i < 4000; ++i) {
      f.fingerprint = "fp" + std::to_string(i);
      ASSERT_GT(store->AddFinding(run, 0, i + 1, f), 0) << store->last_error();
    }
    // The same findings again from the two ranks of a job, each race found
    // by both: the report reads them with each race's findings together
    // (SQLite sorts them) and folds them as they pass.
    const int64_t job = store->BeginRun({.mode = "run", .command = "torchrun many"});
    const int64_t ranks[] = {store->AddProcess(job, {1, "rank 0", "node1", 0}),
                             store->AddProcess(job, {2, "rank 1", "node1", 1})};
    for (int i = 0; i < 4000; ++i) {
      f.fingerprint = "fp" + std::to_string(i % 2000);
      ASSERT_GT(store->AddFinding(job, ranks[i / 2000], i + 1, f), 0) << store->last_error();
    }
    ASSERT_TRUE(store->database().Exec("COMMIT"));
  }
  const long baseline = PeakMemoryKiB("report " + db + " --format summary --rule use-after-free");
  ASSERT_GT(baseline, 0);
  for (const char* run : {"1", "2"}) {
    for (const char* format : {"json", "sarif", "html", "text"}) {
      const long peak = PeakMemoryKiB("report " + db + " --run " + run + " --format " + format);
      ASSERT_GT(peak, 0) << format;
      // Holding 4,000 findings would take tens of MB more.
      EXPECT_LT(peak, baseline + 12 * 1024) << "run " << run << ", " << format << ": " << peak << " KiB against "
                                            << baseline;
    }
  }
  const testing::CommandResult folded = Streamcheck("report " + db + " --run 2 --format summary");
  EXPECT_EQ(folded.exit_code, 0);
  EXPECT_NE(folded.output.find("by rule: 2000 cross-stream-race\n"), std::string::npos)
      << folded.output.substr(folded.output.size() - std::min<size_t>(folded.output.size(), 400));
}

}  // namespace
}  // namespace streamcheck

namespace streamcheck {
namespace {

using namespace hostile;  // NOLINT: the suite's helpers

// The lint's outputs (where streamcheck-lint was built): a source file whose
// name is not valid UTF-8 gives valid SARIF with the bytes percent-encoded;
// its findings, counters and source folders reach the database; a write error
// on stdout exits 2.
TEST(HostileInput, LintOutputsSurviveHostileFileNames) {
  const fs::path lint = fs::path(STREAMCHECK_BINARY).parent_path().parent_path() / "analyzer" / "streamcheck-lint";
  if (!fs::exists(lint)) GTEST_SKIP() << "streamcheck-lint not built";
  Scratch s;
  const std::string source = s.File("race \xff.cu");
  fs::copy_file(std::string(STREAMCHECK_SOURCE_DIR) + "/testdata/lint/cross_stream_race_basic.cu", source);
  const std::string db = s.File("lint.db");
  auto sarif = StreamcheckOut("lint '" + source + "' --format sarif --db " + db);
  EXPECT_EQ(sarif.exit_code, 1) << sarif.output;
  nlohmann::json doc;
  ASSERT_NO_THROW(doc = nlohmann::json::parse(sarif.output));
  ASSERT_FALSE(doc["runs"][0]["results"].empty());
  const std::string uri = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
  EXPECT_NE(uri.find("race%20%FF.cu"), std::string::npos) << uri;
  EXPECT_EQ(FindingsIn(db), 1);
  std::string error;
  auto store = store::Store::Open(db, &error, {.read_only = true});
  ASSERT_TRUE(store) << error;
  std::set<std::string> roots;
  ASSERT_TRUE(store::ReadSourceRoots(*store, {}, &roots, &error));
  EXPECT_TRUE(roots.count(s.path().string())) << "the linted file's folder";
  auto full = testing::RunCommand(std::string(STREAMCHECK_BINARY) + " lint '" + source +
                                  "' --format sarif >/dev/full 2>/dev/null");
  EXPECT_EQ(full.exit_code, 2);
}

}  // namespace
}  // namespace streamcheck
