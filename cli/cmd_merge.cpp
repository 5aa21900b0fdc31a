#include "cli/cmd_merge.h"

#include <iostream>
#include <memory>

#include "cli/common_options.h"
#include "cli/exit_code.h"
#include "store/merge.h"

namespace streamcheck::cli {

void AddMergeCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "merge", "Merge the findings databases of several processes or ranks into one. All inputs or none: a "
      "failure leaves OUT as it was");
  struct Options {
    std::string output;
    std::vector<std::string> inputs;
    int busy_timeout_ms = 5000;
  };
  auto options = std::make_shared<Options>();
  cmd->add_option("OUT", options->output, "the merged database (created when missing)")->required();
  cmd->add_option("IN", options->inputs, "databases to copy in (read-only; none may be OUT)")->required();
  AddBusyTimeoutOption(cmd, &options->busy_timeout_ms);
  cmd->callback([options] {
    SetExitCode(store::RunMerge(options->output, options->inputs, std::cerr, options->busy_timeout_ms));
  });
}

}  // namespace streamcheck::cli
