// SARIF 2.1.0 for code scanning (GitHub and others). One result per finding:
// the later access is the result's location, the earlier one a related
// location, and each access's stack a thread flow of one code flow.
#pragma once

#include <nlohmann/json.hpp>

#include "store/report_model.h"

namespace streamcheck::store {

nlohmann::json SarifReport(const ReportData& data);
// How a file path becomes an artifact URI: relative paths stay relative
// (code scanning resolves them against the checkout); absolute ones become
// file:// URIs.
std::string SarifUri(const std::string& path);

}  // namespace streamcheck::store
