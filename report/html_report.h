// The HTML report: one self-contained page (inline CSS and SVG, no scripts
// from the network) with, per finding, the timeline, the reason and fix, and
// both accesses' stacks with their source lines where source_snippets.h
// allows quoting them (regular text files under the run's source roots).
#pragma once

#include <ostream>

#include "report/report_model.h"

namespace streamcheck::report {

// False when reading the findings failed partway.
bool WriteHtmlReport(const ReportData& data, std::ostream& out);

}  // namespace streamcheck::report
