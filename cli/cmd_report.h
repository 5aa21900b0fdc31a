#pragma once
#include <CLI/CLI.hpp>
namespace streamcheck::cli {
// `streamcheck report DB [--format text|json|sarif|html] [--rule ID] [--run N|last]
//  [--baseline OLD.db] [--suppressions FILE] [-o FILE] [--error-exitcode[=N]]`
void AddReportCommand(CLI::App& app);
}  // namespace streamcheck::cli
