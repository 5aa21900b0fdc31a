// The terminal report, shaped like compiler diagnostics so editors and CI
// logs can jump to the location:
//   file:line:col: error: MESSAGE [rule]
//     note: earlier access: ... with its stack
#pragma once

#include <ostream>

#include "report/report_model.h"

namespace streamcheck::report {

bool WriteTextReport(const ReportData& data, std::ostream& out);

// One line per finding (where, rule, kind, the two operations, how often),
// then the count per rule: the overview a CI log or a first look wants.
bool WriteSummaryReport(const ReportData& data, std::ostream& out);

}  // namespace streamcheck::report
