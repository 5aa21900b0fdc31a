// Parsing the names the runtime gives its enums back into values: the store
// keeps names (readable in sqlite3 queries, immune to renumbering).
#pragma once

#include <string_view>

#include "runtime/finding.h"

namespace streamcheck::store {

// Unknown names give the given fallback.
FindingKind FindingKindFromName(std::string_view name, FindingKind fallback);
Confidence ConfidenceFromName(std::string_view name, Confidence fallback);
std::string_view OriginName(FindingOrigin origin);
FindingOrigin OriginFromName(std::string_view name);

}  // namespace streamcheck::store
