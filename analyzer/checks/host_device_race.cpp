#include "analyzer/checks/host_device_race.h"

#include "analyzer/checks/conflict_report.h"

namespace streamcheck::lint {

HostDeviceRaceCheck::HostDeviceRaceCheck() : LintCheck(rules::RuleId::kHostDeviceRace) {}

void HostDeviceRaceCheck::OnHostAccess(const HostAccess& access, const FlowState& before, CheckContext& ctx) {
  for (const Conflict& c : ctx.HostConflictsOf(access, before)) {
    // The host touching a staged copy's pageable destination: pageable-async-copy.
    if (c.legacy_assumed || c.earlier->staged_into_pageable || ctx.Saturated()) continue;
    ctx.Emit(HostConflictDiagnostic(rule(), access, c, before, ctx));
  }
}

}  // namespace streamcheck::lint
