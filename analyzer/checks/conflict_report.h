// The wording and notes shared by the checks that report an unordered pair
// of accesses (cross-stream-race, host-device-race, nonblocking-legacy-order).
#pragma once

#include "analyzer/lint_check.h"

namespace streamcheck::lint {

std::string ModeVerb(AccessMode mode);  // "reads", "writes", "may write"

// The diagnostic for a device op (later) conflicting with `c.earlier`.
LintDiagnostic DeviceConflictDiagnostic(rules::RuleId rule, const DeviceOp& later, const Conflict& c,
                                        const FlowState& s, CheckContext& ctx);
// The diagnostic for a host access conflicting with `c.earlier`.
LintDiagnostic HostConflictDiagnostic(rules::RuleId rule, const HostAccess& later, const Conflict& c,
                                      const FlowState& s, CheckContext& ctx);

}  // namespace streamcheck::lint
