#pragma once
#include <CLI/CLI.hpp>
namespace streamcheck::cli {
// `streamcheck rules [ID]`: list the rule catalogue or print one rule's page.
void AddRulesCommand(CLI::App& app);
}  // namespace streamcheck::cli
