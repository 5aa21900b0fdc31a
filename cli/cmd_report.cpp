#include "cli/cmd_report.h"

#include <fmt/core.h>
#include <unistd.h>

#include <iostream>
#include <memory>

#include "cli/common_options.h"
#include "cli/exit_code.h"
#include "report/report_command.h"

namespace streamcheck::cli {

void AddReportCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "report", "Print the findings of a store as text, a one-line-per-finding summary, JSON, SARIF or a "
                "self-contained HTML page");
  struct Options {
    report::ReportRequest request;
    std::vector<std::string> path_maps;
    std::string run;
    std::string color = "auto";
  };
  auto options = std::make_shared<Options>();
  report::ReportRequest& r = options->request;
  cmd->add_option("DB", r.db_path,
                  "the findings database (opened read-only: a read-only file, folder or mount is fine)")
      ->required();
  cmd->add_option("--format", r.format,
                  "text (default: each finding with both stacks, why and fix), summary (one line per finding, "
                  "counts by rule), json, sarif, codeclimate (GitLab's code quality report) or html")
      ->check(CLI::IsMember({"text", "summary", "json", "sarif", "codeclimate", "html"}));
  cmd->add_option("--rule", r.rule, "only findings of this rule id");
  cmd->add_option("--group-by", r.group_by,
                  "test: the findings grouped by the test (scope) they were found in, each group headed, in every "
                  "format (docs/SCOPES.md)")
      ->check(CLI::IsMember({"test"}));
  cmd->add_option("--scope", r.scope,
                  "only findings with a side in a scope (test) this glob matches, e.g. 'tests/test_io.py::*' "
                  "(docs/SCOPES.md)");
  cmd->add_option("--run", options->run, "only this run id, or 'last' (default: every run)");
  cmd->add_option("--baseline", r.baseline_path,
                  "only findings whose fingerprint OLD.db does not have (what CI should fail on)");
  cmd->add_option("--suppressions", r.suppressions_path,
                  "leave out findings a suppressions file matches (docs/SUPPRESSIONS.md)");
  cmd->add_option("-o,--output", r.output_path,
                  "write the report to FILE instead of stdout (through a temporary file: a failed report leaves "
                  "FILE as it was; FILE may not be one of the inputs)");
  cmd->add_option("--source-root", r.source_roots,
                  "a folder the HTML report may quote source lines from, besides the run's working directory "
                  "and program folders recorded at run time (repeatable; docs/REPORT.md)");
  cmd->add_option("--path-map", options->path_maps,
                  "OLD=NEW: show files recorded under OLD (a container, a CI runner, another checkout) under NEW "
                  "instead, as compilers' -fdebug-prefix-map does; an empty NEW makes them relative; the longest "
                  "OLD that matches wins (repeatable)");
  cmd->add_flag("-v,--verbose", r.verbose,
                "text: full kernel names, every stack frame (library frames too), stream and event details, and "
                "the synchronization between the two accesses");
  AddColorOption(cmd, &options->color);
  AddErrorExitCodeOption(cmd, &r.findings_exit_code, "findings do not fail");
  cmd->callback([options] {
    report::ReportRequest request = options->request;
    for (const std::string& spec : options->path_maps) {
      std::string error;
      if (!request.path_map.Add(spec, &error)) {
        fmt::print(stderr, "streamcheck report: --path-map {}\n", error);
        SetExitCode(kExitUsage);
        return;
      }
    }
    // A file gets colours only when asked for (--color=always).
    request.color = ColorWanted(options->color, request.output_path.empty() ? STDOUT_FILENO : -1);
    if (options->run == "last") {
      request.run = report::kLatestRun;
    } else if (!options->run.empty()) {
      size_t parsed = 0;
      try {
        request.run = std::stoll(options->run, &parsed);
      } catch (const std::exception&) {
      }
      if (parsed == 0 || parsed != options->run.size() || *request.run <= 0) {
        fmt::print(stderr, "streamcheck report: --run takes a run id (a positive number) or 'last', not '{}'\n",
                   options->run);
        SetExitCode(kExitUsage);
        return;
      }
    }
    SetExitCode(report::RunReport(request, std::cout, std::cerr));
  });
}

}  // namespace streamcheck::cli
