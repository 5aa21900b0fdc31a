#include "cli/cmd_merge.h"

#include <iostream>
#include <memory>

#include "cli/exit_code.h"
#include "store/report_command.h"

namespace streamcheck::cli {

void AddMergeCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "merge", "Merge the findings databases of several processes or ranks into one");
  struct Options {
    std::string output;
    std::vector<std::string> inputs;
  };
  auto options = std::make_shared<Options>();
  cmd->add_option("OUT", options->output, "the merged database (created when missing)")->required();
  cmd->add_option("IN", options->inputs, "databases to copy in")->required();
  cmd->callback([options] {
    SetExitCode(store::RunMerge(options->output, options->inputs, std::cerr));
  });
}

}  // namespace streamcheck::cli
