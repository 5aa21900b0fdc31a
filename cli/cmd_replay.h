#pragma once
#include <CLI/CLI.hpp>
namespace streamcheck::cli {
// `streamcheck replay TRACE... [--db FILE]`: runs the engine over recorded traces.
void AddReplayCommand(CLI::App& app);
}  // namespace streamcheck::cli
