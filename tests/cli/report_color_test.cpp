// Colours in the text reports: a terminal gets them unless NO_COLOR is set;
// a pipe or file only with --color=always; --color=never never.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "tests/common/run_command.h"

namespace streamcheck {
namespace {

namespace fs = std::filesystem;

bool Coloured(const std::string& output) { return output.find("\033[") != std::string::npos; }

TEST(ReportColor, FollowsTheTerminalNoColorAndTheOption) {
  if (!fs::exists("/usr/bin/script")) GTEST_SKIP() << "util-linux's script (a terminal for the test) is missing";
  const fs::path dir = fs::temp_directory_path() / ("streamcheck_color_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string db = (dir / "c.db").string();
  const std::string binary = STREAMCHECK_BINARY;
  auto replay = testing::RunCommand(binary + " replay -q --db '" + db + "' '" + STREAMCHECK_SOURCE_DIR +
                                    "/testdata/examples/two_streams.trace.txt' 2>&1");
  ASSERT_EQ(replay.exit_code, 0) << replay.output;
  const std::string report = binary + " report '" + db + "' --format summary";
  // `script` runs the command on a pseudo-terminal.
  auto on_terminal = [&](const std::string& env, const std::string& args) {
    return testing::RunCommand("env -u NO_COLOR " + env + " TERM=xterm script -qec \"" + report + args +
                               "\" /dev/null 2>&1").output;
  };
  EXPECT_TRUE(Coloured(on_terminal("", ""))) << "a terminal is coloured";
  EXPECT_FALSE(Coloured(on_terminal("NO_COLOR=1", ""))) << "NO_COLOR turns colours off";
  EXPECT_TRUE(Coloured(on_terminal("NO_COLOR=1", " --color=always"))) << "--color=always wins";
  EXPECT_FALSE(Coloured(on_terminal("", " --color=never")));
  EXPECT_FALSE(Coloured(testing::RunCommand("env -u NO_COLOR " + report).output)) << "a pipe is not coloured";
  EXPECT_TRUE(Coloured(testing::RunCommand(report + " --color=always").output));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace streamcheck
