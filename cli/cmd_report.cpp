#include "cli/cmd_report.h"

#include <fmt/core.h>

#include <fstream>
#include <iostream>
#include <memory>

#include "cli/exit_code.h"
#include "store/report_command.h"

namespace streamcheck::cli {

void AddReportCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "report", "Print the findings of a store as text, a one-line-per-finding summary, JSON, SARIF or a "
                "self-contained HTML page");
  struct Options {
    store::ReportRequest request;
    std::string run;
    std::string output;
  };
  auto options = std::make_shared<Options>();
  store::ReportRequest& r = options->request;
  cmd->add_option("DB", r.db_path, "the findings database")->required();
  cmd->add_option("--format", r.format,
                  "text (default: each finding with both stacks, why and fix), summary (one line per finding, "
                  "counts by rule), json, sarif or html")
      ->check(CLI::IsMember({"text", "summary", "json", "sarif", "html"}));
  cmd->add_option("--rule", r.rule, "only findings of this rule id");
  cmd->add_option("--run", options->run, "only this run id, or 'last' (default: every run)");
  cmd->add_option("--baseline", r.baseline_path,
                  "only findings whose fingerprint OLD.db does not have (what CI should fail on)");
  cmd->add_option("--suppressions", r.suppressions_path,
                  "leave out findings a suppressions file matches (docs/SUPPRESSIONS.md)");
  cmd->add_option("-o,--output", options->output, "write the report to FILE instead of stdout");
  // The same form as run and replay: `--error-exitcode N`.
  cmd->add_option("--error-exitcode", r.findings_exit_code,
                  "exit with N (e.g. 1) when any finding is reported (default 0: findings do not fail)");
  cmd->callback([options] {
    store::ReportRequest request = options->request;
    if (options->run == "last") {
      request.run = -1;
    } else if (!options->run.empty()) {
      size_t parsed = 0;
      try {
        request.run = std::stoll(options->run, &parsed);
      } catch (const std::exception&) {
      }
      if (parsed == 0 || parsed != options->run.size()) {
        fmt::print(stderr, "streamcheck report: --run takes a run id or 'last'\n");
        SetExitCode(kExitUsage);
        return;
      }
    }
    if (options->output.empty()) {
      SetExitCode(store::RunReport(request, std::cout, std::cerr));
      return;
    }
    std::ofstream file(options->output);
    if (!file) {
      fmt::print(stderr, "streamcheck report: cannot write {}\n", options->output);
      SetExitCode(kExitUsage);
      return;
    }
    SetExitCode(store::RunReport(request, file, std::cerr));
  });
}

}  // namespace streamcheck::cli
