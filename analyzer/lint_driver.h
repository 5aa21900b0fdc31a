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

// A host function left out because its code does not compile here.
struct SkippedFunction {
  std::string name;
  SourcePoint at;     // the first error inside it
  std::string error;  // that error's message
};

struct LintResult {
  std::string file;
  bool compiled = false;        // false: the compiler reported errors (shown in compiler_output)
  std::string compiler_output;  // clang's own diagnostics, printed as they came
  std::vector<LintDiagnostic> diagnostics;  // sorted by location
  // With compile errors, the functions that parsed cleanly are still analysed.
  int functions_total = 0;     // host functions written in the file
  int functions_analysed = 0;
  std::vector<SkippedFunction> skipped;
  SourcePoint first_error;  // the first error of the file, wherever it is
  std::string first_error_message;
  std::vector<std::string> dropped_flags;  // flags clang does not know, left out of the parse
  double seconds = 0;
};

std::vector<LintResult> RunLint(const std::vector<LintJob>& jobs, int parallelism);

}  // namespace streamcheck::lint
