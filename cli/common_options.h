// Options several subcommands take, declared once so that their names, ranges
// and help read the same everywhere.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace streamcheck::cli {

// --error-exitcode N (0-255): the exit code when findings remain;
// `otherwise` says what the command returns without it.
void AddErrorExitCodeOption(CLI::App* command, int* code, const char* otherwise);

// --busy-timeout MS: how long a write waits for another process's lock on
// the database.
void AddBusyTimeoutOption(CLI::App* command, int* milliseconds);

// --color auto|always|never: ANSI colours in the text reports. auto colours a
// terminal unless NO_COLOR is set (https://no-color.org) or TERM is "dumb".
void AddColorOption(CLI::App* command, std::string* mode);
// Whether to colour what goes to file descriptor `fd`.
bool ColorWanted(const std::string& mode, int fd);

}  // namespace streamcheck::cli
