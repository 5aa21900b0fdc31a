// Work that may crash, hang or load what it should not, done in a child
// process with a time limit: `doctor` loads the tracer's libraries and runs
// the lint and Python this way, so that whatever they do, it reports.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace streamcheck::cli {

struct ChildResult {
  bool finished = false;  // exited by itself within the time limit
  int exit_code = -1;
  std::string output;     // what it wrote (a program: stdout, and stderr unless kept apart)
  std::string errors;     // a program's stderr, when kept apart
  std::string failure;    // when !finished: "timed out after 20 s", "killed by signal 11", "cannot fork: ..."
};

// Runs `probe` in a forked child; what it appends to its string comes back
// as output, its return value as the exit code.
ChildResult ProbeInChild(const std::function<int(std::string*)>& probe, int timeout_seconds);

// Runs a program (PATH searched) with stdin from /dev/null; its stderr goes
// to `errors` with separate_errors, else into `output` with its stdout.
ChildResult RunProgram(const std::vector<std::string>& argv, int timeout_seconds, bool separate_errors = false);

}  // namespace streamcheck::cli
