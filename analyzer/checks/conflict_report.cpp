#include "analyzer/checks/conflict_report.h"

namespace streamcheck::lint {

std::string ModeVerb(AccessMode mode) {
  switch (mode) {
    case AccessMode::kRead: return "reads";
    case AccessMode::kWrite: return "writes";
    case AccessMode::kReadWrite: return "reads and writes";
    case AccessMode::kUnknown: return "may write";
  }
  return "uses";
}

namespace {

std::string KindText(FindingKind kind) {
  switch (kind) {
    case FindingKind::kReadAfterWrite: return "read-after-write";
    case FindingKind::kWriteAfterRead: return "write-after-read";
    case FindingKind::kWriteAfterWrite: return "write-after-write";
    default: return "conflict";
  }
}

// `own`: the helper call both sides lie in, if any (CheckContext::OwnCall).
void Common(LintDiagnostic& d, const Conflict& c, const FlowState& s, CheckContext& ctx,
            const CheckContext::OwnCall& own) {
  d.finding.kind = c.kind;
  d.finding.confidence = c.confidence;
  const DeviceOp& e = *c.earlier;
  const clang::SourceLocation earlier_at = ctx.At(own, e.context, e.inner_loc, e.loc);
  ctx.Note(d, earlier_at, "earlier: " + e.what + " on " + CheckContext::StreamName(s, e.stream) + " " +
                              ModeVerb(c.earlier_access.mode) + " `" + c.earlier_access.ref.Text() + "` here");
  ctx.NoteHelper(d, e.helper, e.inner_loc, earlier_at, e.what);
  if (e.staged_destination) {
    ctx.Note(d, earlier_at,
             e.api + " from pageable memory returns once the data is staged; by CUDA's API synchronization "
                     "behavior the DMA to its destination may not have completed (documented, not observed)");
  }
  d.finding.accesses.insert(d.finding.accesses.begin(), ctx.DeviceSide(e, c.earlier_access, s, "earlier"));
  ctx.SetBuffer(d, c.later_access.ref, s);
}

}  // namespace

LintDiagnostic DeviceConflictDiagnostic(rules::RuleId rule, const DeviceOp& later, const Conflict& c,
                                        const FlowState& s, CheckContext& ctx) {
  const DeviceOp& e = *c.earlier;
  const std::string later_stream = CheckContext::StreamName(s, later.stream);
  const std::string earlier_stream = CheckContext::StreamName(s, e.stream);
  const CheckContext::OwnCall own = ctx.OwnCallOf(later.context, e.context);
  const clang::SourceLocation at = ctx.At(own, later.context, later.inner_loc, later.loc);
  LintDiagnostic d = ctx.Make(rule, at,
                              KindText(c.kind) + " race: " + later.what + " on " + later_stream + " " +
                                  ModeVerb(c.later_access.mode) + " `" + c.later_access.ref.Text() + "` while " +
                                  e.what + " on " + earlier_stream + " may still " +
                                  (MayWrite(c.earlier_access.mode) ? "write" : "read") + " it");
  d.finding.accesses.push_back(ctx.DeviceSide(later, c.later_access, s, "later"));
  Common(d, c, s, ctx, own);
  ctx.NoteHelper(d, later.helper, later.inner_loc, at, later.what);
  if (c.legacy_assumed) {
    d.finding.reason = "the non-blocking stream is not ordered with the legacy default stream";
  } else {
    d.finding.reason = "no event recorded on " + earlier_stream + " after the earlier access is waited on by " +
                       later_stream + ", and no host synchronization separates them";
  }
  const std::string later_code = CheckContext::StreamCode(later.stream);
  const std::string earlier_code = CheckContext::StreamCode(e.stream);
  const clang::SourceLocation earlier_at = ctx.At(own, e.context, e.inner_loc, e.loc);
  const std::string wait = "cudaStreamWaitEvent(" + later_code + ", /*event recorded on " + earlier_code +
                           " after line " + std::to_string(ctx.Point(earlier_at).line) + "*/);";
  ctx.Note(d, at, "nothing orders " + later_stream + " after " + earlier_stream + ": record an event on " +
                      earlier_code + " after the earlier access and add `" + wait + "` before this line");
  d.finding.fix = "cudaEventRecord(ev, " + earlier_code + ") after line " +
                  std::to_string(ctx.Point(earlier_at).line) + "; cudaStreamWaitEvent(" + later_code +
                  ", ev) before line " + std::to_string(ctx.Point(at).line);
  if (own) ctx.MoveIntoHelper(d, at, later.loc, own.helper->helper);
  return d;
}

LintDiagnostic HostConflictDiagnostic(rules::RuleId rule, const HostAccess& later, const Conflict& c,
                                      const FlowState& s, CheckContext& ctx) {
  const DeviceOp& e = *c.earlier;
  const std::string earlier_stream = CheckContext::StreamName(s, e.stream);
  const CheckContext::OwnCall own = ctx.OwnCallOf(later.context, e.context);
  const clang::SourceLocation at = ctx.At(own, later.context, later.inner_loc, later.loc);
  LintDiagnostic d = ctx.Make(rule, at,
                              "the host " + ModeVerb(c.later_access.mode) + " `" + c.later_access.ref.Text() +
                                  "` while " + e.what + " on " + earlier_stream + " may still " +
                                  (MayWrite(c.earlier_access.mode) ? "write" : "read") + " it");
  d.finding.accesses.push_back(ctx.HostSide(at, c.later_access.mode, "host access", "later"));
  Common(d, c, s, ctx, own);
  ctx.NoteHelper(d, later.helper, later.inner_loc, at, "host access");
  d.finding.reason = c.legacy_assumed
                         ? "synchronizing the legacy default stream does not wait for a non-blocking stream"
                         : "the host did not synchronize with " + earlier_stream + " after the asynchronous work";
  const std::string sync = CheckContext::SyncCode(e.stream);
  ctx.Note(d, at, "the host never waits for " + earlier_stream + " before this access");
  if (!c.legacy_assumed) ctx.FixBefore(d, at, sync);
  d.finding.fix = sync + " before line " + std::to_string(ctx.Point(at).line);
  if (own) ctx.MoveIntoHelper(d, at, later.loc, own.helper->helper);
  return d;
}

}  // namespace streamcheck::lint
