#include "cli/cmd_rules.h"

#include <fmt/core.h>

#include "cli/exit_code.h"
#include "rules/catalogue.h"

namespace streamcheck::cli {
void AddRulesCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("rules", "List the rules, or print the documentation of one");
  auto* id = new std::string;  // lives as long as the app
  cmd->add_option("ID", *id, "rule id (e.g. cross-stream-race)");
  cmd->callback([id] {
    if (id->empty()) {
      for (const rules::Rule& r : rules::AllRules())
        fmt::print("{:<26} {:<8} {:<15} {}\n", r.id, rules::SeverityName(r.severity),
                   rules::HalvesName(r.halves), r.summary);
      return;
    }
    const rules::Rule* r = rules::Find(*id);
    if (r == nullptr) {
      fmt::print(stderr, "streamcheck rules: unknown rule '{}'; `streamcheck rules` lists them\n", *id);
      SetExitCode(kExitUsage);
      return;
    }
    if (r->documentation.empty()) fmt::print("{}\n\n{}\n\nFix: {}\n", r->id, r->summary, r->fix_hint);
    else fmt::print("{}", r->documentation);
  });
}

}  // namespace streamcheck::cli
