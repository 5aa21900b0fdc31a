// tracer/host/signal_chain.h with the preloaded library: guard faults never
// reach the program, every other SIGSEGV reaches it as the kernel would have
// delivered it. Each scenario runs in a process of its own (signal_chain_probe.cpp).
#include <gtest/gtest.h>

#include <string>

#include "tests/common/run_command.h"

namespace {

struct Outcome {
  std::string output;
  int status = -1;  // the shell's $?: 128+N when signal N ended the probe
};

Outcome RunProbe(const std::string& scenario, bool preload = true) {
  const std::string command = std::string(preload ? "LD_PRELOAD=" EXIT_HOOK_LIB " " : "") + SIGNAL_CHAIN_PROBE + " " +
                              scenario + " 2>/dev/null; echo \"status $?\"";
  const streamcheck::testing::CommandResult r = streamcheck::testing::RunCommand("sh -c '" + command + "'");
  Outcome o;
  const size_t at = r.output.rfind("status ");
  o.output = r.output.substr(0, at);
  if (at != std::string::npos) o.status = std::stoi(r.output.substr(at + 7));
  return o;
}

constexpr int kKilledBySegv = 128 + 11;

TEST(SignalChain, WithoutThePreloadedLibraryNothingIsInstalled) {
  EXPECT_EQ(RunProbe("install", /*preload=*/false).output, "not installed\n");
  EXPECT_EQ(RunProbe("install").output, "installed\n");
}

TEST(SignalChain, TheProgramsHandlerBeforeOrAfterOursGetsOnlyItsOwnFaults) {
  for (const char* when : {"handler-before", "handler-after"}) {
    const Outcome o = RunProbe(when);
    EXPECT_EQ(o.output,
              "guarded read 7\n"
              "program handler calls after guard faults: 0\n"
              "program handler calls: 1, its address\n")
        << when;
    EXPECT_EQ(o.status, 0) << when;
  }
}

TEST(SignalChain, APlainHandlerThatFixesTheFaultLetsTheAccessHappen) {
  const Outcome o = RunProbe("plain-handler");
  EXPECT_EQ(o.output, "guarded 7, own 3, handler calls 1\n");
  EXPECT_EQ(o.status, 0);
}

TEST(SignalChain, ResetHandMeansTheSecondFaultTakesTheDefault) {
  const Outcome o = RunProbe("resethand");
  EXPECT_EQ(o.output,
            "guarded 7\n"
            "after one fault: default\n"
            "guarded after the reset 7\n"
            "findings saved\n");
  EXPECT_EQ(o.status, kKilledBySegv);
}

TEST(SignalChain, AStackOverflowReachesTheProgramsHandlerOnItsAlternateStack) {
  const Outcome o = RunProbe("sigaltstack");
  EXPECT_EQ(o.output, "guarded 7\nhandler on the alternate stack\n");
  EXPECT_EQ(o.status, 7);
}

TEST(SignalChain, AFaulthandlerLikeReinstallAndRaiseEndsTheProcessAsWithoutUs) {
  const Outcome o = RunProbe("faulthandler");
  EXPECT_EQ(o.output,
            "replaced: the default\n"
            "guarded 7\n"
            "Fatal Python error: Segmentation fault (dumped)\n"
            "findings saved\n");
  EXPECT_EQ(o.status, kKilledBySegv);
}

TEST(SignalChain, NoHandlerMeansTheDefaultActionAfterTheFindingsAreSaved) {
  const Outcome o = RunProbe("default");
  EXPECT_EQ(o.output, "guarded 7\nfindings saved\n");
  EXPECT_EQ(o.status, kKilledBySegv);
}

TEST(SignalChain, AnIgnoredSegvIgnoresOnlySentOnes) {
  const Outcome o = RunProbe("ignore");
  EXPECT_EQ(o.output, "a sent SIGSEGV ignored, guarded 7\nfindings saved\n");
  EXPECT_EQ(o.status, kKilledBySegv);
}

TEST(SignalChain, TheProgramSeesItsOwnDisposition) {
  EXPECT_EQ(RunProbe("query").output, "query: the program's handler\nsignal() returned: the program's handler\n");
}

TEST(SignalChain, AProgramThatBlocksSegvStillHasItsGuardFaultsHandled) {
  const Outcome o = RunProbe("blocked");
  EXPECT_EQ(o.output,
            "guarded written; the program's mask blocks SIGSEGV\n"
            "raised while blocked: 0 handler calls\n"
            "delivered at the unblock: 1 handler call\n");
  EXPECT_EQ(o.status, 0);
}

TEST(SignalChain, AnotherSignalsHandlerBlockingEverythingMayTouchGuardedPages) {
  for (const char* when : {"other-mask-before", "other-mask-after"}) {
    const Outcome o = RunProbe(when);
    EXPECT_EQ(o.output, "SIGUSR1 handler read 7; its mask as the program sees it has SIGSEGV\n") << when;
    EXPECT_EQ(o.status, 0) << when;
  }
}

TEST(SignalChain, SixteenThreadsFaultAtOnce) {
  const Outcome o = RunProbe("threads");
  EXPECT_EQ(o.output, "wrong values 0, faults at least one per thread\n");
  EXPECT_EQ(o.status, 0);
}

TEST(SignalChain, APageTheProgramProtectsItselfIsNeverOpenedByUs) {
  const Outcome o = RunProbe("program-mprotect");
  EXPECT_EQ(o.output, "program handler calls 1, values 5 6\n");
  EXPECT_EQ(o.status, 0);
}

TEST(SignalChain, APageTheProgramUnmapsAndMapsAgainIsNeverGivenAccessByUs) {
  const Outcome o = RunProbe("program-munmap");
  EXPECT_EQ(o.output, "the new mapping stays read-only; the fault went to the program at its address\n");
  EXPECT_EQ(o.status, 0);
}

TEST(SignalChain, AForkedChildDoesNotFaultOnItsParentsGuards) {
  const Outcome o = RunProbe("fork");
  EXPECT_EQ(o.output, "child: no fault, right values\nparent's page still guarded: yes\n");
  EXPECT_EQ(o.status, 0);
}

}  // namespace
