// A program that dies of a signal whose default action ends it keeps what
// the tracer had queued (tracer/crash_signals.h): in a forked child, a
// tracer takes two races (four kernel launches), then the child raises the
// signal; its trace must hold every launch and both races. A handler the program
// installed, or SIG_IGN, stays the program's.
#include "tracer/crash_signals.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <string>

#include "runtime/trace/trace_io.h"
#include "tests/runtime/trace_builder.h"
#include "tests/tracer/two_races.h"
#include "tracer/tracer.h"

namespace streamcheck::tracer {
namespace {

class CrashSignals : public ::testing::Test {
 protected:
  CrashSignals() : trace_path_(::testing::TempDir() + "crash_signals." + std::to_string(getpid()) + ".trace") {}
  ~CrashSignals() override { std::remove(trace_path_.c_str()); }

  enum class Program { kDefault, kIgnores, kHandles };

  // The child's wait status: it traces two races, then raises `sig`
  // (and exits with 7 if it lives on; a handler of its own exits with 9).
  int RunChild(int sig, Program program) {
    const pid_t pid = fork();
    if (pid == 0) {
      if (program == Program::kIgnores) std::signal(sig, SIG_IGN);
      TracerConfig config;
      config.trace_path = trace_path_;
      config.capture_stacks = false;
      auto* tracer = new Tracer(config);  // the signal ends the child with it
      InstallCrashSignalHandlers(tracer);
      if (program == Program::kHandles) std::signal(sig, [](int) { _exit(9); });
      testing_records::EmitTwoRaces(*tracer);
      raise(sig);
      _exit(7);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
  }

  // The kernel launches the trace holds, and the findings a replay gives.
  std::pair<int, size_t> LaunchesAndFindings() const {
    std::string error;
    auto source = OpenTrace(trace_path_, &error);
    if (!source) return {-1, 0};
    testing::CollectingSink sink;
    Engine engine(&sink);
    TraceRecord r;
    int launches = 0;
    while (source->Next(&r) == TraceSource::Status::kRecord) {
      launches += r.op == OpCode::kKernelLaunch;
      engine.Process(r);
    }
    engine.Finish();
    return {launches, sink.findings.size()};
  }

  std::string trace_path_;
};

TEST_F(CrashSignals, CtrlCOfAProgramLeftAtTheDefaultKeepsTheQueuedRace) {
  const int status = RunChild(SIGINT, Program::kDefault);
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  EXPECT_EQ(LaunchesAndFindings(), (std::pair<int, size_t>{4, 2}));
}

TEST_F(CrashSignals, EverySignalThatEndsAProgramKeepsTheQueuedRace) {
  for (int sig : {SIGHUP, SIGQUIT, SIGPIPE, SIGTERM, SIGABRT, SIGXCPU, SIGUSR1, SIGALRM}) {
    const int status = RunChild(sig, Program::kDefault);
    ASSERT_TRUE(WIFSIGNALED(status)) << sig;
    EXPECT_EQ(WTERMSIG(status), sig);
    EXPECT_EQ(LaunchesAndFindings(), (std::pair<int, size_t>{4, 2})) << sig;
    std::remove(trace_path_.c_str());
  }
}

TEST_F(CrashSignals, AnIgnoredSignalStaysIgnored) {
  const int status = RunChild(SIGPIPE, Program::kIgnores);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 7);
}

TEST_F(CrashSignals, AHandlerTheProgramInstallsLaterIsTheOneThatRuns) {
  const int status = RunChild(SIGINT, Program::kHandles);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 9);
}

}  // namespace
}  // namespace streamcheck::tracer
