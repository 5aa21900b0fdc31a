// `streamcheck trace convert|dump`: the trace file converters.
#pragma once

#include <CLI/CLI.hpp>

namespace streamcheck::cli {

void AddTraceCommand(CLI::App& app);

}  // namespace streamcheck::cli
