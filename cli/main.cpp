// `streamcheck` entry point: registers each subcommand (cli/cmd_*.cpp).
//
// Exit codes, the same for every subcommand:
//   0  success, no findings (or findings not asked to fail)
//   1  findings, when the command was asked to fail on them
//   2  usage error, unreadable input, or output that could not be written
#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <string_view>

#include "cli/cmd_doctor.h"
#include "cli/cmd_lint.h"
#include "cli/cmd_merge.h"
#include "cli/cmd_plugin.h"
#include "cli/cmd_replay.h"
#include "cli/cmd_report.h"
#include "cli/cmd_rules.h"
#include "cli/cmd_run.h"
#include "cli/cmd_trace.h"
#include "cli/exit_code.h"
#include "report/output_file.h"

namespace {

// What every command ends with: output that did not reach its destination
// (a full disk, /dev/full, a closed pipe) is a failure, not a success.
int Finish(int code) {
  std::string error;
  if (!streamcheck::report::FlushStandardOutput(&error)) {
    std::fprintf(stderr, "streamcheck: %s\n", error.c_str());
    return streamcheck::cli::kExitUsage;
  }
  if (std::fflush(stderr) != 0 || std::ferror(stderr)) return streamcheck::cli::kExitUsage;
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  // A closed pipe is a write error (exit 2) rather than a silent death.
  std::signal(SIGPIPE, SIG_IGN);
  CLI::App app{
      "streamcheck finds stream-ordering bugs in CUDA programs: two streams (or a stream and the "
      "host) touching the same memory with no happens-before edge.\n\n"
      "Exit codes: 0 success/no findings, 1 findings (when asked to fail on them), 2 usage or "
      "input error, or output that could not be written.",
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
  streamcheck::cli::AddDoctorCommand(app);
  streamcheck::cli::AddPluginCommand(app);
  // CLI11 answers an unknown word with "A subcommand is required".
  std::string names;
  bool known = false;
  for (const CLI::App* sub : app.get_subcommands({})) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
    known = known || (argc > 1 && sub->check_name(argv[1]));
  }
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::fprintf(stderr, "streamcheck: unknown command '%s' (commands: %s; `streamcheck --help` explains them)\n",
                 argv[1], names.c_str());
    return Finish(streamcheck::cli::kExitUsage);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 returns 0 for --help/--version and its own codes otherwise; map
    // every real parse failure to our usage-error code.
    const int rc = app.exit(e);
    return Finish(rc == 0 ? 0 : streamcheck::cli::kExitUsage);
  } catch (const std::exception& e) {
    // fmt::print throws when a stream cannot be written (stderr on a full
    // disk): a write failure, exit 2, not an abort.
    std::fprintf(stderr, "streamcheck: %s\n", e.what());
    return streamcheck::cli::kExitUsage;
  }
  return Finish(streamcheck::cli::ExitCode());
}
