// tracer/exit_hook.c: preloaded, it runs the registered hook before _exit()
// and _Exit() end the process, with the exit status unchanged.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace {

struct Outcome {
  int exit_code = -1;
  std::string output;
};

Outcome RunProbe(const std::string& preload, const std::string& how) {
  const std::string cmd = (preload.empty() ? "" : "LD_PRELOAD=" + preload + " ") + EXIT_HOOK_PROBE + " " + how;
  Outcome o;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return o;
  std::array<char, 256> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) o.output.append(buf.data(), n);
  const int status = pclose(p);
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
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
