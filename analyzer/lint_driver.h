// Runs the analysis over translation units: one clang invocation per
// compile command, N at a time on worker threads, each with its own
// FileManager and working directory.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "analyzer/diagnostic.h"
#include "analyzer/function_summary.h"

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
  // Whether anything the analysis needed was left out: a function written in
  // the file, or a helper it calls, with a compile error in it, or code after
  // a fatal error. Errors elsewhere (device code, functions nothing calls)
  // leave the analysis complete; they are still shown.
  bool incomplete() const { return !skipped.empty() || fatal_error || (!compiled && functions_analysed == 0); }
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
  // A fatal error (a missing header): clang reports no error after it, so
  // functions after it are left out only where clang marked their code as
  // not compiling (an error expression, an invalid declaration).
  bool fatal_error = false;
  SourcePoint fatal_at;
  std::string fatal_message;
  std::vector<std::string> dropped_flags;  // flags clang does not know, left out of the parse
  std::vector<LintNote> budget_notes;      // functions analysed with reduced precision
  // For the other files: what this file's functions do (by USR), and which
  // functions of other files it calls.
  SummaryTable summaries;
  std::set<std::string> external_calls;
  double seconds = 0;
};

// The per-function budget (AnalyzerOptions has the rest): 0 lifts a limit.
struct LintLimits {
  size_t max_pending = 1024;
  int max_findings = 1000;
};

// Lints every job; then, with the summaries of the functions each file
// defines, lints again the files that call a function of another file that
// waits for or queues work (function_summary.h), and keeps those results.
// The command without the flags clang's driver does not know (GCC-only
// options that reach the command through -Xcompiler or a g++ entry, nvcc's
// -t0), which would otherwise stop the parse with "unknown argument"; those
// go to *dropped. --print-commands prints what is left, so it re-runs.
std::vector<std::string> KnownFlags(const std::vector<std::string>& argv, std::vector<std::string>* dropped);

std::vector<LintResult> RunLint(const std::vector<LintJob>& jobs, int parallelism, const LintLimits& limits = {});

}  // namespace streamcheck::lint
