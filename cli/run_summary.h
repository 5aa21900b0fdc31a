// What `run` and `replay` print after their findings, and the exit code that
// follows from them: one place, so that the two commands say the same thing
// the same way and exit alike (a replay of a run's trace is that run again).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace streamcheck::store {
class RunSession;
}

namespace streamcheck::cli {

using CountsByName = std::map<std::string, uint64_t>;

// What the analysis could not judge: calls it does not model, records it did
// not expect, and findings inside a library's own work it left out. Each line
// starts with `prefix` ("streamcheck: ", or two spaces under a trace's line).
void PrintCoverageNotes(const std::string& prefix, const CountsByName& unmodeled_apis,
                        const CountsByName& anomalies, const CountsByName& library_internal);

// "streamcheck: N findings (M occurrences)[, S suppressed][WHERE]".
void PrintFindingsLine(uint64_t findings, uint64_t occurrences, uint64_t suppressed, const std::string& where);

// The command's exit code once its findings are known. Findings a lock kept
// out of the database (said in one sentence, after "streamcheck COMMAND: ")
// are no success: kExitUsage. Otherwise `code` (the traced program's status
// for run, 0 or an input error's 2 for replay), which --error-exitcode
// replaces when there are findings unless `input_error` says `code` reports
// one.
int ExitCodeAfterFindings(const std::string& command, int code, bool input_error, uint64_t findings,
                          int error_exitcode, const store::RunSession& session);

}  // namespace streamcheck::cli
