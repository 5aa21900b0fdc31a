// The work behind `streamcheck report` and `streamcheck merge`, kept in the
// library so tests drive it without the binary. Exit codes as everywhere in
// streamcheck: 0 clean, 1 findings (only when asked: findings_exit_code), 2 usage or
// input error.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace streamcheck::store {

struct ReportRequest {
  std::string db_path;
  std::string format = "text";  // text | json | sarif | html
  std::string rule;             // empty: all rules
  std::optional<int64_t> run;   // unset: every run; -1: the latest run
  std::string baseline_path;    // report only fingerprints missing from it
  std::string suppressions_path;
  // --error-exitcode[=N]: the exit code when findings remain after the
  // filters; 0 means findings do not fail the command.
  int findings_exit_code = 0;
};

// Writes the report to `out`, messages to `err`; returns the exit code.
int RunReport(const ReportRequest& request, std::ostream& out, std::ostream& err);

// Merges `inputs` into `output` (created when missing); returns the exit code.
int RunMerge(const std::string& output, const std::vector<std::string>& inputs, std::ostream& err);

}  // namespace streamcheck::store
