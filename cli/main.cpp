// `streamcheck` entry point: registers each subcommand (cli/cmd_*.cpp).
//
// Exit codes, the same for every subcommand:
//   0  success, no findings (or findings not asked to fail)
//   1  findings, when the command was asked to fail on them
//   2  usage error or unreadable input
#include <CLI/CLI.hpp>

#include <cstdio>

#include "cli/cmd_lint.h"
#include "cli/cmd_merge.h"
#include "cli/cmd_replay.h"
#include "cli/cmd_report.h"
#include "cli/cmd_rules.h"
#include "cli/cmd_run.h"
#include "cli/cmd_trace.h"
#include "cli/exit_code.h"

int main(int argc, char** argv) {
  CLI::App app{
      "streamcheck finds stream-ordering bugs in CUDA programs: two streams (or a stream and the "
      "host) touching the same memory with no happens-before edge.\n\n"
      "Exit codes: 0 success/no findings, 1 findings (when asked to fail on them), 2 usage or "
      "input error.",
      "streamcheck"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("streamcheck ") + STREAMCHECK_VERSION);
  streamcheck::cli::AddRulesCommand(app);
  streamcheck::cli::AddRunCommand(app);
  streamcheck::cli::AddReplayCommand(app);
  streamcheck::cli::AddLintCommand(app);
  streamcheck::cli::AddReportCommand(app);
  streamcheck::cli::AddMergeCommand(app);
  streamcheck::cli::AddTraceCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 returns 0 for --help/--version and its own codes otherwise; map
    // every real parse failure to our usage-error code.
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return streamcheck::cli::ExitCode();
}
