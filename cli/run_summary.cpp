#include "cli/run_summary.h"

#include <fmt/core.h>

#include "cli/exit_code.h"
#include "report/text_escape.h"
#include "store/run_session.h"

namespace streamcheck::cli {

void PrintCoverageNotes(const std::string& prefix, const CountsByName& unmodeled_apis,
                        const CountsByName& anomalies, const CountsByName& library_internal) {
  for (const auto& [api, n] : unmodeled_apis)
    fmt::print(stderr, "{}not modeled: {} ({} call{})\n", prefix, report::EscapeControl(api), n, n == 1 ? "" : "s");
  for (const auto& [what, n] : anomalies)
    fmt::print(stderr, "{}anomaly: {} ({}x)\n", prefix, report::EscapeControl(what), n);
  for (const auto& [what, n] : library_internal)
    fmt::print(stderr, "{}not reported, a library's own work: {} ({} finding{})\n", prefix,
               report::EscapeControl(what), n, n == 1 ? "" : "s");
}

void PrintFindingsLine(uint64_t findings, uint64_t occurrences, uint64_t suppressed, const std::string& where) {
  fmt::print(stderr, "streamcheck: {} finding{} ({} occurrences){}{}\n", findings, findings == 1 ? "" : "s",
             occurrences, suppressed ? fmt::format(", {} suppressed", suppressed) : "", where);
}

int ExitCodeAfterFindings(const std::string& command, int code, bool input_error, uint64_t findings,
                          int error_exitcode, const store::RunSession& session) {
  // What a lock kept out of the database and waits beside it is no finding
  // stored (store/pending_writes.h): said, and not a success.
  if (const std::string unstored = session.UnstoredSummary(); !unstored.empty()) {
    fmt::print(stderr, "streamcheck {}: {}\n", command, unstored);
    return kExitUsage;
  }
  if (!input_error && findings > 0 && error_exitcode != 0) return error_exitcode;
  return code;
}

}  // namespace streamcheck::cli
