// The JSON report (`report --format json`), documented in docs/JSON_FORMAT.md.
// Bump kJsonFormatVersion when a key changes meaning or disappears.
#pragma once

#include <nlohmann/json.hpp>

#include "store/report_model.h"

namespace streamcheck::store {

inline constexpr int kJsonFormatVersion = 1;

nlohmann::json JsonReport(const ReportData& data);
nlohmann::json JsonFinding(const StoredFinding& finding);
nlohmann::json JsonStack(const std::vector<ResolvedFrame>& stack);

}  // namespace streamcheck::store
