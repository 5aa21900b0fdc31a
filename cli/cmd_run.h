#pragma once
#include <CLI/CLI.hpp>
namespace streamcheck::cli {
// `streamcheck run [options] -- CMD ARGS...`: runs a program under the CUPTI tracer.
void AddRunCommand(CLI::App& app);
}  // namespace streamcheck::cli
