#pragma once
#include <CLI/CLI.hpp>
namespace streamcheck::cli {
// `streamcheck doctor [--need LIST] [--json]`: what this installation can do
// on this machine, one line per capability with the reason and the fix where
// something is missing; exit 0 when everything asked for is there.
void AddDoctorCommand(CLI::App& app);
}  // namespace streamcheck::cli
