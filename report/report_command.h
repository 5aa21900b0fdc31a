// The work behind `streamcheck report`, kept in the
// library so tests drive it without the binary. Exit codes as everywhere in
// streamcheck: 0 clean, 1 findings (only when asked: findings_exit_code), 2 usage or
// input error.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "runtime/trace/path_map.h"

namespace streamcheck::report {

inline constexpr int64_t kLatestRun = -1;

struct ReportRequest {
  std::string db_path;
  std::string format = "text";  // text | summary | json | sarif | codeclimate | html
  std::string rule;             // empty: all rules
  std::optional<int64_t> run;   // unset: every run; kLatestRun: the latest run
  std::string baseline_path;    // report only fingerprints missing from it
  std::string suppressions_path;
  // Written through a temporary file renamed into place on success (an
  // existing file stays as it was when anything fails); empty: `out`.
  std::string output_path;
  // Folders the HTML report may quote files from, beside those the runs
  // recorded (source_snippets.h).
  std::vector<std::string> source_roots;
  // --path-map OLD=NEW: the paths the runs recorded, as the reader's
  // checkout has them (applied before suppressions match).
  PathMap path_map;
  // text and summary: ANSI colours (the CLI decides: --color, NO_COLOR, a
  // terminal), and --verbose (full names, every frame, stream details, syncs).
  bool color = false;
  bool verbose = false;
  // --group-by test: the findings ordered and headed by their test
  // (docs/SCOPES.md); "" for the order found.
  std::string group_by;
  // --scope GLOB: only findings with a side in a scope (test) the glob
  // matches (store/suppressions.h GlobMatch); empty: every finding.
  std::string scope;
  // --error-exitcode[=N]: the exit code when findings remain after the
  // filters; 0 means findings do not fail the command.
  int findings_exit_code = 0;
};

// Writes the report to `out`, messages to `err`; returns the exit code.
int RunReport(const ReportRequest& request, std::ostream& out, std::ostream& err);

}  // namespace streamcheck::report
