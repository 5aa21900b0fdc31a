#include "analyzer/checks/free_while_in_use.h"

#include "analyzer/checks/conflict_report.h"

namespace streamcheck::lint {

FreeWhileInUseCheck::FreeWhileInUseCheck() : LintCheck(rules::RuleId::kFreeWhileInUse) {}

void FreeWhileInUseCheck::OnFree(const FreeEvent& free, const FlowState& before, CheckContext& ctx) {
  for (int id : before.pending) {
    const DeviceOp& op = ctx.ops()[id];
    if (op.captured) continue;
    // The host freeing a staged copy's pageable destination: pageable-async-copy.
    if (op.staged_into_pageable && free.stream.empty()) continue;
    const BufferAccess* used = nullptr;
    for (const BufferAccess& a : op.accesses) {
      if (a.ref.base.key == free.ref.base.key) used = &a;
    }
    if (used == nullptr) continue;
    if (!free.stream.empty()) {
      // Freed in stream order: fine when the freeing stream is ordered after the use.
      if (OrderedBefore(before, op, free.stream.key, ctx.ops())) continue;
      if (!DistinctStreams(before, op.stream.key, free.stream.key)) continue;
    }
    const std::string where = free.stream.empty() ? "the host" : CheckContext::StreamName(before, free.stream);
    LintDiagnostic d = ctx.Make(rule(), free.loc,
                                free.api + " frees `" + free.ref.base.text + "` on " + where + " while " + op.what +
                                    " on " + CheckContext::StreamName(before, op.stream) + " may still use it");
    d.finding.kind = FindingKind::kFreeWhileInUse;
    d.finding.accesses.push_back(ctx.DeviceSide(op, *used, before, "use"));
    // The free is issued by a host call either way; a stream-ordered free
    // (cudaFreeAsync) then takes effect on its stream, not on the host.
    FindingAccess f = ctx.HostSide(free.loc, AccessMode::kWrite, free.api, "free");
    if (!free.stream.empty()) {
      f.on_host = false;
      f.stream = CheckContext::StreamName(before, free.stream);
    }
    f.api = free.api;
    d.finding.accesses.push_back(std::move(f));
    ctx.SetBuffer(d, free.ref, before);
    ctx.Note(d, op.loc, "still in use by " + op.what + " on " + CheckContext::StreamName(before, op.stream));
    ctx.NoteHelper(d, op.helper, op.inner_loc, op.loc, op.what);
    if (free.stream.empty()) {
      ctx.FixBefore(d, free.loc, CheckContext::SyncCode(op.stream));
      d.finding.reason = "nothing makes the host wait for the use before freeing";
    } else {
      d.finding.reason = CheckContext::StreamName(before, free.stream) + " is not ordered after the use";
      ctx.Note(d, free.loc, "free on " + op.stream.text + ", or make " + free.stream.text +
                                " wait on an event recorded after the use");
    }
    ctx.Emit(std::move(d));
    return;
  }
}

}  // namespace streamcheck::lint
