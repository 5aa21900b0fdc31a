// Where lint results go: clang-style text on stdout, the findings store
// (--db) through the run session every analysis shares (store/run_session.h:
// suppressions, counters), and SARIF from the store's exporter, built in
// memory.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analyzer/lint_driver.h"
#include "store/run_session.h"

namespace streamcheck::lint {

struct OutputOptions {
  std::string format = "text";     // text | sarif
  std::string db_path;             // --db: keep the findings
  std::string suppressions_path;   // --suppressions
  std::string command;             // the lint command line, for the store's run row
  int busy_timeout_ms = 5000;      // --busy-timeout
  bool color = false;
  bool allow_partial = false;      // --allow-partial: an incomplete analysis is no failure
};

// The exit status of an analysis that left something out: a function with an
// error in it, code after a fatal error (docs/lint.md); distinct from 0 (no
// findings), 1 (findings) and 2 (usage or input errors).
inline constexpr int kExitIncomplete = 3;

class LintOutput {
 public:
  // Loads the suppressions and opens the database before the analysis, so
  // that a bad one fails at once rather than after minutes of work.
  static std::unique_ptr<LintOutput> Open(const OutputOptions& options, std::string* error);

  // Reports compiler errors and what they left out, prints the findings no
  // suppression drops (text or SARIF on stdout) and stores them. Returns the
  // exit code: 0 no findings, 1 findings, 2 a file of which nothing could be
  // analysed or an output that failed, 3 (kExitIncomplete) functions or part
  // of a file left out (all said on stderr); with allow_partial, what was
  // left out does not change the code.
  int Write(const std::vector<LintResult>& results);

 private:
  LintOutput(OutputOptions options, std::unique_ptr<store::RunSession> session)
      : options_(std::move(options)), session_(std::move(session)) {}
  OutputOptions options_;
  std::unique_ptr<store::RunSession> session_;
};

}  // namespace streamcheck::lint
