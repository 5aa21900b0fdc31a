// Runs the analysis over translation units: one clang invocation per
// compile command, N at a time on worker threads, each with its own
// FileManager and working directory.
#pragma once

#include <string>
#include <vector>

#include "analyzer/diagnostic.h"

namespace streamcheck::lint {

struct LintJob {
  std::string file;
  std::string directory;          // where the command runs
  std::vector<std::string> argv;  // the clang command (PrepareClangCommand)
};

struct LintResult {
  std::string file;
  bool compiled = false;        // false: the compiler reported errors (shown in compiler_output)
  std::string compiler_output;  // clang's own diagnostics, printed as they came
  std::vector<LintDiagnostic> diagnostics;  // sorted by location
  double seconds = 0;
};

std::vector<LintResult> RunLint(const std::vector<LintJob>& jobs, int parallelism);

}  // namespace streamcheck::lint
