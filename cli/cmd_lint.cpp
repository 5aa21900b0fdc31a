#include "cli/cmd_lint.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/exit_code.h"
#include "cli/install_paths.h"

namespace streamcheck::cli {
namespace {

// streamcheck-lint in the installation's lib/streamcheck/ or the build
// tree's analyzer/ (install_paths.h), else on PATH.
std::string FindLintTool() {
  const std::string found = FindInstalledPart("streamcheck-lint", "analyzer");
  return found.empty() ? "streamcheck-lint" : found;
}

}  // namespace

void AddLintCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "lint",
      "Static analysis of CUDA/C++ sources for stream-ordering bugs (runs streamcheck-lint; "
      "`streamcheck lint --help` for its options, docs/lint.md)");
  // Every argument, options included, belongs to streamcheck-lint.
  cmd->prefix_command();
  cmd->set_help_flag();
  cmd->callback([cmd] {
    std::vector<std::string> args = cmd->remaining();
    const std::string tool = FindLintTool();
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(tool.c_str()));
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::fflush(nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr,
                 "streamcheck lint: cannot run %s: %s (it is built when Clang/LLVM 22 is found; "
                 "see docs/lint.md)\n",
                 tool.c_str(), std::strerror(errno));
    SetExitCode(kExitUsage);
  });
}

}  // namespace streamcheck::cli
