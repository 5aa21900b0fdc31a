#include "analyzer/checks/nonblocking_legacy_order.h"

#include "analyzer/checks/conflict_report.h"

namespace streamcheck::lint {

NonBlockingLegacyOrderCheck::NonBlockingLegacyOrderCheck() : LintCheck(rules::RuleId::kNonBlockingLegacyOrder) {}

namespace {
void Explain(LintDiagnostic& d, const Conflict& c, const FlowState& s, CheckContext& ctx) {
  const DeviceOp& e = *c.earlier;
  Symbol nonblocking = e.stream;
  if (KindOf(s, nonblocking.key) != StreamKind::kNonBlocking) return;
  if (auto it = s.streams.find(nonblocking.key); it != s.streams.end() && it->second.created.isValid()) {
    ctx.Note(d, it->second.created,
             "`" + nonblocking.text + "` is created with cudaStreamNonBlocking, so the legacy default stream "
             "neither waits for it nor makes it wait");
  }
}
}  // namespace

void NonBlockingLegacyOrderCheck::OnDeviceOp(const DeviceOp& op, const FlowState& before, CheckContext& ctx) {
  for (const Conflict& c : ctx.DeviceConflictsOf(op, before)) {
    if (!c.legacy_assumed || ctx.Saturated()) continue;
    LintDiagnostic d = DeviceConflictDiagnostic(rule(), op, c, before, ctx);
    Explain(d, c, before, ctx);
    if (KindOf(before, op.stream.key) == StreamKind::kNonBlocking) {
      if (auto it = before.streams.find(op.stream.key); it != before.streams.end() && it->second.created.isValid()) {
        ctx.Note(d, it->second.created,
                 "`" + op.stream.text + "` is created with cudaStreamNonBlocking, so it does not wait for the "
                 "legacy default stream");
      }
    }
    ctx.Emit(std::move(d));
  }
}

void NonBlockingLegacyOrderCheck::OnHostAccess(const HostAccess& access, const FlowState& before,
                                               CheckContext& ctx) {
  for (const Conflict& c : ctx.HostConflictsOf(access, before)) {
    if (!c.legacy_assumed || c.earlier->staged_into_pageable || ctx.Saturated()) continue;
    LintDiagnostic d = HostConflictDiagnostic(rule(), access, c, before, ctx);
    Explain(d, c, before, ctx);
    ctx.Emit(std::move(d));
  }
}

}  // namespace streamcheck::lint
