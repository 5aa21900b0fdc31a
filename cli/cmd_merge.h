#pragma once
#include <CLI/CLI.hpp>
namespace streamcheck::cli {
// `streamcheck merge OUT.db IN.db...`: one store from the stores of several processes or ranks.
void AddMergeCommand(CLI::App& app);
}  // namespace streamcheck::cli
