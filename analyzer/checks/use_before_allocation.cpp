#include "analyzer/checks/use_before_allocation.h"

#include "analyzer/checks/conflict_report.h"

namespace streamcheck::lint {

UseBeforeAllocationCheck::UseBeforeAllocationCheck() : LintCheck(rules::RuleId::kUseBeforeAllocation) {}

namespace {

// The pending, unordered allocation of `base` that `use` is not ordered after.
const DeviceOp* UnorderedAllocation(const std::string& base, const DeviceOp& use, const FlowState& s,
                                    const OpTable& ops) {
  for (int id : s.pending) {
    const DeviceOp& alloc = ops[id];
    if (alloc.allocates != base || alloc.captured) continue;
    if (OrderedBefore(s, alloc, use.stream.key, ops) || !DistinctStreams(s, alloc.stream.key, use.stream.key)) {
      return nullptr;
    }
    return &alloc;
  }
  return nullptr;
}

// Whether work on `stream` already used `base`: only the first use on each
// stream is reported (later ones are the same missing order).
bool UsedOnStreamBefore(const std::string& base, const DeviceOp& use, const FlowState& s, const OpTable& ops) {
  for (int id : s.pending) {
    const DeviceOp& op = ops[id];
    if (op.id == use.id || op.stream_id != use.stream_id) continue;
    for (const BufferAccess& a : op.accesses) {
      if (a.ref.base.key == base) return true;
    }
  }
  return false;
}

}  // namespace

void UseBeforeAllocationCheck::OnDeviceOp(const DeviceOp& op, const FlowState& before, CheckContext& ctx) {
  if (op.captured) return;
  for (const BufferAccess& a : op.accesses) {
    const DeviceOp* alloc = UnorderedAllocation(a.ref.base.key, op, before, ctx.ops());
    if (alloc == nullptr || UsedOnStreamBefore(a.ref.base.key, op, before, ctx.ops())) continue;
    const std::string use_stream = CheckContext::StreamName(before, op.stream);
    const std::string alloc_stream = CheckContext::StreamName(before, alloc->stream);
    LintDiagnostic d = ctx.Make(rule(), op.loc,
                                op.what + " on " + use_stream + " " + ModeVerb(a.mode) + " `" + a.ref.Text() +
                                    "`, allocated by " + alloc->api + " on " + alloc_stream +
                                    ", and nothing orders it after the allocation");
    d.finding.kind = FindingKind::kUseBeforeAlloc;
    d.finding.confidence = a.mode == AccessMode::kUnknown ? Confidence::kPossible : Confidence::kCertain;
    d.finding.reason = "stream-ordered memory may be used only by work ordered after its allocation: later work on " +
                       alloc_stream + ", or work that waits on an event recorded there after it";
    BufferAccess allocated;
    allocated.ref = a.ref;
    allocated.mode = AccessMode::kWrite;
    d.finding.accesses.push_back(ctx.DeviceSide(*alloc, allocated, before, "allocation"));
    d.finding.accesses.push_back(ctx.DeviceSide(op, a, before, "use"));
    ctx.SetBuffer(d, a.ref, before);
    ctx.Note(d, alloc->loc, "`" + a.ref.base.text + "` is allocated on " + alloc_stream + " here");
    ctx.NoteHelper(d, alloc->helper, alloc->inner_loc, alloc->loc, alloc->what);
    const std::string code = CheckContext::StreamCode(alloc->stream);
    ctx.Note(d, op.loc, "allocate on " + CheckContext::StreamCode(op.stream) + ", or record an event on " + code +
                            " after the allocation and make " + CheckContext::StreamCode(op.stream) + " wait on it");
    ctx.NoteHelper(d, op.helper, op.inner_loc, op.loc, op.what);
    d.finding.fix = "cudaEventRecord(ev, " + code + ") after line " + std::to_string(ctx.Point(alloc->loc).line) +
                    "; cudaStreamWaitEvent(" + CheckContext::StreamCode(op.stream) + ", ev) before line " +
                    std::to_string(ctx.Point(op.loc).line);
    ctx.Emit(std::move(d));
    return;
  }
}

}  // namespace streamcheck::lint
