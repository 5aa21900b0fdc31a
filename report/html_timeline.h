// The per-finding timeline picture of the HTML report: one lane per stream
// (or host thread), the finding's operations placed in trace order, the racing
// pair highlighted and joined by the missing edge, and the synchronisation
// operations the finding names (event record/wait, syncs) joined by the edges
// that do exist. Inline SVG, so the page needs nothing from the network.
#pragma once

#include <string>

#include "runtime/finding.h"

namespace streamcheck::report {

// Escapes &, <, >, " and ' for HTML text and attribute values.
std::string HtmlEscape(std::string_view text);

std::string TimelineSvg(const Finding& finding);

}  // namespace streamcheck::report
