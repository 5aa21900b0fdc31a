// The JSON report (`report --format json`), documented in docs/JSON_FORMAT.md.
// Bump kJsonFormatVersion when a key changes meaning or disappears.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "report/report_model.h"

namespace streamcheck::report {

inline constexpr int kJsonFormatVersion = 1;

// Writes the report, findings streamed one at a time; false when reading
// the findings failed partway (the document is then incomplete).
bool WriteJsonReport(const ReportData& data, std::ostream& out);
// The whole document in memory (tests; small reports).
nlohmann::json JsonReport(const ReportData& data);
nlohmann::json JsonFinding(const store::StoredFinding& finding);
nlohmann::json JsonStack(const std::vector<ResolvedFrame>& stack);

}  // namespace streamcheck::report
