#include "analyzer/checks/host_device_race.h"

#include "analyzer/checks/conflict_report.h"

namespace streamcheck::lint {

HostDeviceRaceCheck::HostDeviceRaceCheck() : LintCheck(rules::RuleId::kHostDeviceRace) {}

void HostDeviceRaceCheck::OnHostAccess(const HostAccess& access, const FlowState& before, CheckContext& ctx) {
  for (const Conflict& c : HostConflicts(access, before, ctx.ops())) {
    if (c.legacy_assumed) continue;
    ctx.Emit(HostConflictDiagnostic(rule(), access, c, before, ctx));
  }
}

}  // namespace streamcheck::lint
