// Options several subcommands take, declared once so that their names, ranges
// and help read the same everywhere.
#pragma once

#include <CLI/CLI.hpp>

namespace streamcheck::cli {

// --error-exitcode N (0-255): the exit code when findings remain;
// `otherwise` says what the command returns without it.
void AddErrorExitCodeOption(CLI::App* command, int* code, const char* otherwise);

// --busy-timeout MS: how long a write waits for another process's lock on
// the database.
void AddBusyTimeoutOption(CLI::App* command, int* milliseconds);

}  // namespace streamcheck::cli
