// Where lint results go: clang-style text on stdout, the findings store
// (--db), and SARIF through the store's exporter.
#pragma once

#include <string>
#include <vector>

#include "analyzer/lint_driver.h"

namespace streamcheck::lint {

struct OutputOptions {
  std::string format = "text";  // text | sarif
  std::string db_path;          // --db: keep the findings
  std::string command;          // the lint command line, for the store's run row
  bool color = false;
};

// Prints/stores the results; returns false (with a message on stderr) when
// the store cannot be written.
bool WriteResults(const std::vector<LintResult>& results, const OutputOptions& options, int exit_status);

}  // namespace streamcheck::lint
