// tracer/preload/exit_hook.c: preloaded, it runs the registered hook before _exit()
// and _Exit() end the process, with the exit status unchanged.
#include <gtest/gtest.h>

#include <string>

#include "tests/common/run_command.h"

namespace {

using Outcome = streamcheck::testing::CommandResult;

Outcome RunProbe(const std::string& preload, const std::string& how) {
  return streamcheck::testing::RunCommand((preload.empty() ? "" : "LD_PRELOAD=" + preload + " ") + EXIT_HOOK_PROBE +
                                          " " + how);
}

TEST(ExitHook, RunsTheHookBeforeExitAndKeepsTheStatus) {
  Outcome o = RunProbe(EXIT_HOOK_LIB, "_exit");
  EXPECT_EQ(o.output, "hook ran\n");
  EXPECT_EQ(o.exit_code, 5);
  o = RunProbe(EXIT_HOOK_LIB, "_Exit");
  EXPECT_EQ(o.output, "hook ran\n");
  EXPECT_EQ(o.exit_code, 6);
}

TEST(ExitHook, WithoutThePreloadNothingToRegister) {
  const Outcome o = RunProbe("", "_exit");
  EXPECT_EQ(o.output, "no hook\n");
  EXPECT_EQ(o.exit_code, 2);
}

}  // namespace
