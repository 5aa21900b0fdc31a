// The HTML report: one self-contained page (inline CSS and SVG, no scripts
// from the network) with, per finding, the timeline, the reason and fix, and
// both accesses' stacks with their source lines when the files are readable.
#pragma once

#include <ostream>

#include "store/report_model.h"

namespace streamcheck::store {

void WriteHtmlReport(const ReportData& data, std::ostream& out);

}  // namespace streamcheck::store
