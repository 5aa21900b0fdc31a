// GitLab's code quality report: the part of Code Climate's issue format that
// GitLab reads (https://docs.gitlab.com/ci/testing/code_quality/), one issue
// per finding: description, check_name (the rule), fingerprint, severity and
// location.path / location.lines.begin. GitLab wants paths relative to the
// repository's root, which is where CI runs: a path under the working
// directory is written relative to it, any other as it was stored; the
// fingerprint, a hash of the finding's, leaves the working directory out too.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "report/report_model.h"

namespace streamcheck::report {

bool WriteCodeClimateReport(const ReportData& data, std::ostream& out);
// The same array in memory, paths made relative to `working_dir`.
nlohmann::json CodeClimateReport(const ReportData& data, const std::string& working_dir);

}  // namespace streamcheck::report
