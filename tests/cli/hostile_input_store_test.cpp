// Issue 44's reproducers against the `streamcheck` binary: nothing lost,
// nothing doubled, nothing leaked. Outputs onto a database's side files, a
// lock held past the busy timeout, inputs merged twice, runs that never
// ended, huge suppression files, findings by the million, dotfiles in the
// HTML report, symlinked outputs and the small usage holes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "store/database.h"
#include "store/store.h"
#include "tests/cli/hostile_input_helpers.h"
#include "tests/common/run_command.h"

namespace streamcheck {
namespace {

using namespace hostile;  // NOLINT: the suite's helpers

// A writer killed after committing `findings` findings: they are in the
// database's write-ahead log, not yet in its main file.
void KilledWriter(const std::string& db, int findings) {
  const pid_t child = fork();
  if (child == 0) {
    std::string error;
    auto store = store::Store::Open(db, &error);
    if (!store) _exit(3);
    const int64_t run = store->BeginRun({.mode = "run", .command = "killed writer"});
    Finding f;
    f.rule = "cross-stream-race";
    FindingAccess a;
    a.op = "kernel";
    f.accesses = {a, a};
    for (int i = 0; i < findings; ++i) {
      f.fingerprint = "fp" + std::to_string(i);
      if (store->AddFinding(run, 0, i + 1, f) < 0) _exit(3);
    }
    ::kill(::getpid(), SIGKILL);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

TEST(HostileInput, NoOutputIsTheDatabaseOrItsSideFiles) {
  Scratch s;
  const std::string db = s.File("k.db");
  KilledWriter(db, 50);
  ASSERT_GT(fs::file_size(db + "-wal"), 0u) << "the commits are in the log";
  ASSERT_EQ(FindingsIn(db), 50);
  const std::string wal = ReadAll(db + "-wal");
  fs::create_symlink(db + "-wal", s.File("alias"));
  for (const std::string& output : {db + "-wal", db + "-shm", db + "-journal", s.File("alias")}) {
    auto report = Streamcheck("report " + db + " --format json -o " + output);
    EXPECT_EQ(report.exit_code, 2) << output << ": " << report.output;
    EXPECT_NE(report.output.find("nothing was written"), std::string::npos) << report.output;
    auto baseline = Streamcheck("report " + MakeDatabase(s) + " --baseline " + db + " -o " + output);
    EXPECT_EQ(baseline.exit_code, 2) << output << ": " << baseline.output;
  }
  EXPECT_FALSE(fs::exists(db + "-journal")) << "not made either";
  EXPECT_TRUE(ReadAll(db + "-wal") == wal);
  // merge OUT onto an input's log; replay and run onto a database whose side
  // file is an input.
  auto merge = Streamcheck("merge " + db + "-wal " + db);
  EXPECT_EQ(merge.exit_code, 2) << merge.output;
  WriteAll(s.File("t.db-journal"), RacesTrace(1));
  auto replay = Streamcheck("replay --db " + s.File("t.db") + " " + s.File("t.db-journal"));
  EXPECT_EQ(replay.exit_code, 2) << replay.output;
  EXPECT_EQ(ReadAll(s.File("t.db-journal")), RacesTrace(1));
  auto run = Streamcheck("run --db " + db + " --trace " + db + "-wal -- true");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(ReadAll(db + "-wal") == wal);
  EXPECT_EQ(FindingsIn(db), 50) << "every committed finding is still there";
}


// The run row's exit status and whether it ended ("" when NULL).
std::string RunEnd(const std::string& db, int64_t run) {
  std::string error;
  auto store = store::Store::Open(db, &error, {.read_only = true});
  if (!store) return "unreadable";
  store::Statement q =
      store->database().Prepare("SELECT end_time_ns IS NOT NULL, exit_status FROM runs WHERE id = " + std::to_string(run));
  if (!q.Step()) return "no run";
  return q.Int(0) == 0 ? "unfinished" : "exit " + std::to_string(q.Int(1));
}

// Records that find nothing, some 1 s of a replay's work per 500,000.
std::string QuietRecords(int records) {
  std::string t = "malloc thread=1 dst=0x9000000 size=64 memory_kind=device api=\"cudaMalloc\"\n";
  for (int i = 0; i < records; ++i)
    t += "kernel_launch thread=1 stream=0x55 name=\"quiet\" api=\"cudaLaunchKernel\" access=0x9000000+64:read\n";
  return t + "free thread=1 dst=0x9000000 api=\"cudaFree\"\n";
}

// `races` races on buffers of their own, named after `batch`.
std::string MoreRaces(int races, int batch) {
  std::string t;
  for (int i = 0; i < races; ++i) {
    const std::string address = "0x" + std::to_string(2000 + batch * 1000 + i) + "000";
    const std::string name = std::to_string(batch) + "_" + std::to_string(i);
    t += "malloc thread=1 dst=" + address + " size=64 memory_kind=device api=\"cudaMalloc\"\n";
    t += "kernel_launch thread=1 stream=0x55 name=\"w" + name + "\" api=\"cudaLaunchKernel\" access=" + address +
         "+64:write\n";
    t += "kernel_launch thread=1 stream=0x66 name=\"r" + name + "\" api=\"cudaLaunchKernel\" access=" + address +
         "+64:read\n";
  }
  return t;
}

// `streamcheck ARGS` started in the background; Wait() gives its exit code.
class Background {
 public:
  Background(const Scratch& s, const std::string& args) : out_(s.File("bg.out")), rc_(s.File("bg.rc")) {
    testing::RunCommand("(" + std::string(STREAMCHECK_BINARY) + " " + args + " >" + out_ + " 2>&1; echo $? >" + rc_ +
                        ".tmp; mv " + rc_ + ".tmp " + rc_ + ") </dev/null >/dev/null 2>&1 &");
  }
  int Wait() {
    while (!fs::exists(rc_)) ::usleep(10000);
    return std::stoi(ReadAll(rc_));
  }
  std::string output() const { return ReadAll(out_); }

 private:
  std::string out_, rc_;
};

// Issue 44: a lock held past --busy-timeout in the middle of a replay of
// 20,000 findings lost one ("19999 of 20000 findings were stored") and the
// run row said exit 0 where the command exited 2. Findings the lock keeps out
// wait and go in once it is free. The lock is held for 1 s from the replay's
// start, past the first 1,000 races on any machine; whether the replay ends
// before or after it is freed depends on the machine's speed (CI's ended
// first), and both ends are checked: freed first, everything is stored and
// the command exits 0; not, what is left waits beside the database (exit 2)
// and the next writer folds it in. Either way nothing is lost and the run row
// says what the command said.
TEST(HostileInput, ALockHeldPastTheBusyTimeoutLosesNoFinding) {
  Scratch s;
  // Quiet for some 0.6 s, 1,000 races, quiet for some 1.2 s, 1,000 races.
  WriteAll(s.File("many.txt"), RacesTrace(0) + QuietRecords(300000) + MoreRaces(1000, 1) + QuietRecords(600000) +
                                   MoreRaces(1000, 2));
  const std::string db = MakeDatabase(s);
  Background replay(s, "replay -q --busy-timeout 50 --db " + db + " " + s.File("many.txt"));
  {
    std::string error;
    store::Database holder(db, false, false, &error);
    holder.SetBusyTimeout(5000);
    while (holder.QueryInt("SELECT count(*) FROM processes").value_or(0) < 2) ::usleep(2000);
    ASSERT_TRUE(holder.Exec("BEGIN IMMEDIATE")) << holder.error();
    ::usleep(1000000);
    EXPECT_EQ(FindingsIn(db), 1) << "nothing written while locked";
    holder.Exec("ROLLBACK");
  }
  const int code = replay.Wait();
  if (code == 0) {
    EXPECT_EQ(FindingsIn(db), 2001) << replay.output();
    EXPECT_NE(replay.output().find("2000 findings (2000 occurrences); stored in"), std::string::npos)
        << replay.output();
  } else {
    EXPECT_EQ(code, 2) << replay.output();
    const int64_t stored = FindingsIn(db) - 1;
    EXPECT_NE(replay.output().find(std::to_string(2000 - stored) + " findings were kept in"), std::string::npos)
        << stored << "\n" << replay.output();
    EXPECT_EQ(Streamcheck("replay -q --db " + db + " " + s.File("one.txt")).exit_code, 0);
    EXPECT_EQ(FindingsIn(db), 2002) << "every finding kept beside the database folded in once";
  }
  EXPECT_EQ(RunEnd(db, 2), "exit " + std::to_string(code));
}

// A pipe can be read once, and replay reads a trace twice (its stacks and
// process first): `replay <(zcat t.gz)` lost every record past the first
// 256 KiB (a parse error in the middle of a line, or silence). Replay and
// convert read a pipe's copy.
TEST(HostileInput, ATraceFromAPipeIsReadWhole) {
  Scratch s;
  WriteAll(s.File("long.txt"), RacesTrace(0) + QuietRecords(20000) + MoreRaces(3, 1));
  const std::string binary = std::string(STREAMCHECK_BINARY);
  const auto replay = testing::RunCommand("cat " + s.File("long.txt") + " | " + binary + " replay -q --no-db /dev/stdin 2>&1");
  EXPECT_EQ(replay.exit_code, 0) << replay.output;
  EXPECT_NE(replay.output.find("3 findings (3 occurrences)"), std::string::npos) << replay.output;
  const auto convert = testing::RunCommand("cat " + s.File("long.txt") + " | " + binary + " trace convert /dev/stdin " +
                                           s.File("long.sctrace") + " 2>&1");
  EXPECT_EQ(convert.exit_code, 0) << convert.output;
  EXPECT_NE(Streamcheck("replay -q --no-db " + s.File("long.sctrace")).output.find("3 findings"), std::string::npos);
  const auto nowhere = testing::RunCommand("cat " + s.File("long.txt") + " | TMPDIR=" + s.File("none") + " " + binary +
                                           " replay -q --no-db /dev/stdin 2>&1");
  EXPECT_EQ(nowhere.exit_code, 2) << nowhere.output;
  EXPECT_NE(nowhere.output.find("is a pipe, and no copy of it could be made"), std::string::npos) << nowhere.output;
}

// A lock held until the command ends: what could not be stored waits in a
// pending file beside the database, which the next writer folds in; the run
// row says what the command said.
TEST(HostileInput, ALockHeldToTheEndKeepsTheFindingsBesideTheDatabase) {
  Scratch s;
  WriteAll(s.File("many.txt"), RacesTrace(0) + MoreRaces(150, 1) + QuietRecords(500000) + MoreRaces(150, 2));
  const std::string db = MakeDatabase(s);
  Background replay(s, "replay -q --busy-timeout 50 --db " + db + " " + s.File("many.txt"));
  while (FindingsIn(db) < 2) ::usleep(1000);
  std::string error;
  auto holder = std::make_unique<store::Database>(db, false, false, &error);
  holder->SetBusyTimeout(2000);
  ASSERT_TRUE(holder->Exec("BEGIN IMMEDIATE")) << holder->error();
  const int code = replay.Wait();
  const int64_t before = FindingsIn(db);
  holder->Exec("ROLLBACK");
  holder.reset();
  EXPECT_EQ(code, 2) << replay.output();
  EXPECT_NE(replay.output().find("locked"), std::string::npos) << replay.output();
  EXPECT_NE(replay.output().find(std::to_string(301 - before) + " findings were kept in"), std::string::npos)
      << before << "\n" << replay.output();
  EXPECT_LT(before, 301) << "not all in the database yet";
  // The next writer folds them in, exactly once.
  EXPECT_EQ(Streamcheck("replay -q --db " + db + " " + s.File("one.txt")).exit_code, 0);
  EXPECT_EQ(FindingsIn(db), 302);
  EXPECT_EQ(RunEnd(db, 2), "exit 2");
  EXPECT_EQ(Streamcheck("replay -q --db " + db + " " + s.File("one.txt")).exit_code, 0);
  EXPECT_EQ(FindingsIn(db), 303);
  for (const auto& entry : fs::directory_iterator(s.path()))
    EXPECT_EQ(entry.path().filename().string().find(".pending"), std::string::npos) << entry.path();
}

// Issue 44: `merge OUT a.db b.db b.db b.db` copied b three times.
TEST(HostileInput, MergeCopiesAnInputGivenTwiceOnce) {
  Scratch s;
  WriteAll(s.File("fifty.txt"), RacesTrace(50));
  const std::string a = MakeDatabase(s, "a.db");
  const std::string b = s.File("b.db");
  ASSERT_EQ(Streamcheck("replay -q --db " + b + " " + s.File("fifty.txt")).exit_code, 0);
  fs::copy_file(b, s.File("copy-of-b.db"));
  fs::create_symlink(b, s.File("link-to-b.db"));
  auto merge = Streamcheck("merge " + s.File("out.db") + " " + a + " " + b + " " + b + " " + s.File("link-to-b.db") +
                           " " + s.File("copy-of-b.db"));
  EXPECT_EQ(merge.exit_code, 0) << merge.output;
  EXPECT_EQ(FindingsIn(s.File("out.db")), 51) << merge.output;
  EXPECT_NE(merge.output.find("2 run(s), 2 process(es), 51 finding(s) into"), std::string::npos) << merge.output;
  // Merging the same inputs into the output again adds nothing either.
  auto again = Streamcheck("merge " + s.File("out.db") + " " + b);
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(FindingsIn(s.File("out.db")), 51) << again.output;
}

// Issue 44: a killed run was marked unfinished only in JSON.
TEST(HostileInput, EveryFormatMarksARunThatNeverEnded) {
  Scratch s;
  const std::string db = s.File("k.db");
  KilledWriter(db, 3);
  for (const char* format : {"text", "summary", "html", "sarif"}) {
    auto report = StreamcheckOut("report " + db + " --format " + std::string(format));
    EXPECT_EQ(report.exit_code, 0) << format;
    EXPECT_NE(report.output.find("did not finish"), std::string::npos) << format << ":\n" << report.output;
  }
  auto sarif = StreamcheckOut("report " + db + " --format sarif");
  EXPECT_NE(sarif.output.find("\"executionSuccessful\": false"), std::string::npos) << sarif.output;
  const std::string done = MakeDatabase(s);
  for (const char* format : {"text", "summary", "html", "sarif"})
    EXPECT_EQ(StreamcheckOut("report " + done + " --format " + std::string(format)).output.find("did not finish"),
              std::string::npos)
        << format;
}

// Issue 44: 100,001 suppression lines took 90 s on 20,000 findings: each
// finding was matched against every line.
TEST(HostileInput, AHugeSuppressionsFileIsMatchedThroughAnIndex) {
  Scratch s;
  WriteAll(s.File("many.txt"), RacesTrace(20000));
  std::string lines;
  for (int i = 0; i < 100000; ++i) {
    const std::string n = std::to_string(i);
    switch (i % 4) {
      case 0: lines += "cross-stream-race kernel=x" + n + " -- exact\n"; break;
      case 1: lines += "cross-stream-race kernel=y" + n + "_* -- prefix\n"; break;
      case 2: lines += "* function=*_z" + n + " -- suffix\n"; break;
      default: lines += "* file=*/vendor" + n + "/* -- inside\n"; break;
    }
  }
  lines += "cross-stream-race kernel=r1999? -- the last line suppresses ten\n";
  WriteAll(s.File("huge.supp"), lines);
  auto timed = [&](const std::string& args, testing::CommandResult* result) {
    const auto start = std::chrono::steady_clock::now();
    *result = Streamcheck("replay -q --no-db " + args + s.File("many.txt"));
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  testing::CommandResult plain, suppressed;
  const double without = timed("", &plain);
  const double with = timed("--suppressions " + s.File("huge.supp") + " ", &suppressed);
  EXPECT_EQ(suppressed.exit_code, 0) << suppressed.output;
  EXPECT_NE(suppressed.output.find("19990 findings (19990 occurrences), 10 suppressed"), std::string::npos)
      << suppressed.output;
  // Reading 100,000 lines and matching 20,000 findings: well under a second
  // on a quiet machine (27 s matching each finding against each line).
  EXPECT_LT(with - without, 3.0) << with << " s with the suppressions, " << without << " s without";
}

// Issue 44: a key given twice kept the last; --error-exitcode 2 was taken
// though 2 means a usage or input error.
TEST(HostileInput, ADuplicatedKeyAndErrorExitcodeTwoAreRefused) {
  Scratch s;
  WriteAll(s.File("one.txt"), RacesTrace(1));
  WriteAll(s.File("dup.supp"), "# a comment\ncross-stream-race kernel=A kernel=B -- which?\n");
  auto dup = Streamcheck("replay --no-db --suppressions " + s.File("dup.supp") + " " + s.File("one.txt"));
  EXPECT_EQ(dup.exit_code, 2) << dup.output;
  EXPECT_NE(dup.output.find("dup.supp:2: 'kernel' given twice"), std::string::npos) << dup.output;
  const std::string db = MakeDatabase(s);
  for (const std::string& command : {"report " + db, "replay --no-db " + s.File("one.txt"), std::string("run")}) {
    auto two = Streamcheck(command + " --error-exitcode 2" + (command == "run" ? " -- true" : ""));
    EXPECT_EQ(two.exit_code, 2) << command;
    EXPECT_NE(two.output.find("2 means a usage or input error"), std::string::npos) << command << ": " << two.output;
  }
  EXPECT_EQ(Streamcheck("report " + db + " --error-exitcode 3").exit_code, 3);
}

// Issue 44: `-o` onto a symlink replaced the link by a regular file without a
// word. It follows the link: the file it names is written.
TEST(HostileInput, AnOutputThatIsASymlinkIsFollowed) {
  Scratch s;
  const std::string db = MakeDatabase(s);
  fs::create_directories(s.File("reports"));
  WriteAll(s.File("reports/2026.json"), "old");
  fs::create_symlink("reports/2026.json", s.File("latest.json"));
  auto report = Streamcheck("report " + db + " --format json -o " + s.File("latest.json"));
  EXPECT_EQ(report.exit_code, 0) << report.output;
  EXPECT_TRUE(fs::is_symlink(s.File("latest.json"))) << "the link stays a link";
  EXPECT_EQ(ReadAll(s.File("reports/2026.json")).front(), '{') << "the file it names has the report";
  // A link to nothing is refused: it names no file to write.
  fs::create_symlink("reports/missing.json", s.File("dangling.json"));
  auto dangling = Streamcheck("report " + db + " -o " + s.File("dangling.json"));
  EXPECT_EQ(dangling.exit_code, 2) << dangling.output;
  EXPECT_NE(dangling.output.find("symlink"), std::string::npos) << dangling.output;
  EXPECT_FALSE(fs::exists(s.File("reports/missing.json")));
}

// Issue 44: a frame naming `.env` under the replay's working directory put
// its API_KEY into the HTML page. Only source files are quoted.
TEST(HostileInput, TheHtmlReportQuotesOnlySourceFiles) {
  Scratch s;
  WriteAll(s.File(".env"), "API_KEY=sk-live-1234\n");
  fs::create_directories(s.File(".secrets"));
  WriteAll(s.File(".secrets/key.cu"), "SECRET_IN_DOT_FOLDER\n");
  WriteAll(s.File("notes.txt"), "NOT_A_SOURCE_FILE\n");
  WriteAll(s.File("race.cu"), "QUOTED_SOURCE_LINE\n");
  std::string trace =
      "stream_create thread=1 stream=0x55 flags=0x1 api=\"cudaStreamCreateWithFlags\"\n"
      "stream_create thread=1 stream=0x66 flags=0x1 api=\"cudaStreamCreateWithFlags\"\n";
  const char* files[] = {".env", ".secrets/key.cu", "notes.txt", "race.cu"};
  for (int i = 0; i < 4; ++i) {
    const std::string address = "0x" + std::to_string(1000 + i) + "000";
    trace += "define_stack id=" + std::to_string(i + 1) + " frame=\"main\":\"" + files[i] + "\":1\n";
    trace += "malloc thread=1 dst=" + address + " size=64 memory_kind=device api=\"cudaMalloc\"\n";
    trace += "kernel_launch thread=1 stream=0x55 name=\"w" + std::to_string(i) +
             "\" api=\"cudaLaunchKernel\" access=" + address + "+64:write stack=" + std::to_string(i + 1) + "\n";
    trace += "kernel_launch thread=1 stream=0x66 name=\"r" + std::to_string(i) +
             "\" api=\"cudaLaunchKernel\" access=" + address + "+64:read stack=" + std::to_string(i + 1) + "\n";
  }
  WriteAll(s.File("frames.txt"), trace);
  auto replay = testing::RunCommand("cd " + s.path().string() + " && " + STREAMCHECK_BINARY +
                                    " replay -q --db frames.db frames.txt 2>&1");
  ASSERT_EQ(replay.exit_code, 0) << replay.output;
  auto html = StreamcheckOut("report " + s.File("frames.db") + " --format html");
  ASSERT_EQ(html.exit_code, 0);
  EXPECT_NE(html.output.find("QUOTED_SOURCE_LINE"), std::string::npos) << "a source file is quoted";
  EXPECT_EQ(html.output.find("sk-live-1234"), std::string::npos) << "never a dotfile";
  EXPECT_EQ(html.output.find("SECRET_IN_DOT_FOLDER"), std::string::npos) << "nor a file in a dot folder";
  EXPECT_EQ(html.output.find("NOT_A_SOURCE_FILE"), std::string::npos) << "nor a file that is not source";
}

// Issue 44: with -q --no-db, 100,000 findings took 1.0 GB: every finding was
// kept for a report that -q does not print. A million findings (100,000
// distinct, the engine's bound, each seen ten times) keep one small entry per
// distinct finding: 554 MB before, some 60 MB now.
TEST(HostileInput, AMillionFindingsWithoutADatabaseStayInBoundedMemory) {
  Scratch s;
  {
    std::ofstream t(s.File("million.txt"));
    t << "stream_create thread=1 stream=0x55 flags=0x1 api=\"cudaStreamCreateWithFlags\"\n"
         "stream_create thread=1 stream=0x66 flags=0x1 api=\"cudaStreamCreateWithFlags\"\n"
         "malloc thread=1 dst=0x1000 size=64 memory_kind=device api=\"cudaMalloc\"\n";
    // w_k races r_k (read after write) and r_k races w_k+1 (write after read).
    for (int i = 0; i < 500000; ++i) {
      const int k = i % 50000;
      t << "kernel_launch thread=1 stream=0x55 name=\"w" << k << "\" access=0x1000+64:write\n"
        << "kernel_launch thread=1 stream=0x66 name=\"r" << k << "\" access=0x1000+64:read\n";
    }
  }
  const long peak = PeakMemoryKiB("replay -q --no-db " + s.File("million.txt"), s.File("out.txt"));
  ASSERT_GT(peak, 0);
  EXPECT_NE(ReadAll(s.File("out.txt")).find("100000 findings (999999 occurrences)"), std::string::npos)
      << ReadAll(s.File("out.txt"));
  EXPECT_LT(peak, 150 * 1024) << "KiB";
}

}  // namespace
}  // namespace streamcheck
