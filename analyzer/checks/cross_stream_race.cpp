#include "analyzer/checks/cross_stream_race.h"

#include "analyzer/checks/conflict_report.h"

namespace streamcheck::lint {

CrossStreamRaceCheck::CrossStreamRaceCheck() : LintCheck(rules::RuleId::kCrossStreamRace) {}

void CrossStreamRaceCheck::OnDeviceOp(const DeviceOp& op, const FlowState& before, CheckContext& ctx) {
  for (const Conflict& c : ctx.DeviceConflictsOf(op, before)) {
    // Conflicts the legacy stream would have ordered belong to nonblocking-legacy-order.
    if (c.legacy_assumed || ctx.Saturated()) continue;
    ctx.Emit(DeviceConflictDiagnostic(rule(), op, c, before, ctx));
  }
}

}  // namespace streamcheck::lint
