// `streamcheck` entry point: registers each subcommand (cli/cmd_*.cpp).
//
// Exit codes, the same for every subcommand:
//   0  success, no findings (or findings not asked to fail)
//   1  findings, when the command was asked to fail on them
//   2  usage error or unreadable input
#include <CLI/CLI.hpp>

#include <cstdio>

#include "cli/cmd_rules.h"
#include "cli/exit_code.h"
#if __has_include("cli/cmd_replay.h")
#include "cli/cmd_replay.h"
#define STREAMCHECK_HAVE_REPLAY 1
#endif
#if __has_include("cli/cmd_report.h")
#include "cli/cmd_report.h"
#define STREAMCHECK_HAVE_REPORT 1
#endif
#if __has_include("cli/cmd_merge.h")
#include "cli/cmd_merge.h"
#define STREAMCHECK_HAVE_MERGE 1
#endif
#if __has_include("cli/cmd_trace.h")
#include "cli/cmd_trace.h"
#define STREAMCHECK_HAVE_TRACE 1
#endif
#if __has_include("cli/cmd_lint.h")
#include "cli/cmd_lint.h"
#define STREAMCHECK_HAVE_LINT 1
#endif
#if __has_include("cli/cmd_run.h")
#include "cli/cmd_run.h"
#define STREAMCHECK_HAVE_RUN 1
#endif

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
#ifdef STREAMCHECK_HAVE_RUN
  streamcheck::cli::AddRunCommand(app);
#endif
#ifdef STREAMCHECK_HAVE_REPLAY
  streamcheck::cli::AddReplayCommand(app);
#endif
#ifdef STREAMCHECK_HAVE_LINT
  streamcheck::cli::AddLintCommand(app);
#endif
#ifdef STREAMCHECK_HAVE_REPORT
  streamcheck::cli::AddReportCommand(app);
#endif
#ifdef STREAMCHECK_HAVE_MERGE
  streamcheck::cli::AddMergeCommand(app);
#endif
#ifdef STREAMCHECK_HAVE_TRACE
  streamcheck::cli::AddTraceCommand(app);
#endif
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
