// `streamcheck lint`: runs streamcheck-lint (the Clang-based analyzer, a
// separate executable so this binary links no LLVM) with the same arguments.
#pragma once

#include <CLI/CLI.hpp>

namespace streamcheck::cli {

void AddLintCommand(CLI::App& app);

}  // namespace streamcheck::cli
