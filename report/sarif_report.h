// SARIF 2.1.0 for code scanning (GitHub and others). One result per finding:
// the later access is the result's location, the earlier one a related
// location, and each access's stack a thread flow of one code flow.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "report/report_model.h"

namespace streamcheck::report {

// Writes the log, results streamed one at a time; false when reading the
// findings failed partway.
bool WriteSarifReport(const ReportData& data, std::ostream& out);
// The whole log in memory (tests; small reports).
nlohmann::json SarifReport(const ReportData& data);
// How a file path becomes an artifact URI: relative paths stay relative
// (code scanning resolves them against the checkout); absolute ones become
// file:// URIs. Bytes other than RFC 3986's unreserved characters and '/'
// are percent-encoded (spaces, '#', '%', non-ASCII and invalid UTF-8 alike),
// so the original bytes survive.
std::string SarifUri(const std::string& path);

}  // namespace streamcheck::report
