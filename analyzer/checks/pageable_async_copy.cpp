#include "analyzer/checks/pageable_async_copy.h"

namespace streamcheck::lint {

PageableAsyncCopyCheck::PageableAsyncCopyCheck() : LintCheck(rules::RuleId::kPageableAsyncCopy) {}

namespace {

// Reported at the copy, once: the message and the first note (the
// allocation) do not depend on where the host touched the buffer.
// Where the host touched the copy's destination first.
struct Touch {
  std::string what;  // "reads", "frees", ...
  clang::SourceLocation loc, inner_loc;
  std::string context;
};

void Report(const DeviceOp& copy, const BufferAccess& host_side, const Touch& touch, const FlowState& s,
            CheckContext& ctx, rules::RuleId rule) {
  auto it = s.buffers.find(host_side.ref.base.key);
  const std::string allocated_by = it != s.buffers.end() ? " (" + it->second.allocated_by + ")" : "";
  const std::string name = host_side.ref.base.text;
  LintDiagnostic d = ctx.Make(rule, copy.loc,
                              copy.api + " into pageable host memory `" + name + "`" + allocated_by +
                                  " is staged and may or may not have run when it returns, and the host uses `" + name +
                                  "` before synchronizing with " +
                                  CheckContext::StreamName(s, copy.stream));
  d.finding.kind = FindingKind::kPageableAsyncCopy;
  d.finding.reason = "the CUDA runtime copies into pageable memory through a staging buffer; whether the copy "
                     "runs synchronously is not defined (CUDA's API synchronization behavior)";
  d.finding.accesses.push_back(ctx.DeviceSide(copy, host_side, s, "copy"));
  d.finding.buffer.memory_kind = MemoryKind::kPageableHost;
  ctx.SetBuffer(d, host_side.ref, s);
  // The copy and the touch in one helper call, the two perhaps in helpers it
  // calls in turn (a getter over a lower helper that fills a vector): the
  // finding is that helper's, told in its own lines.
  const CheckContext::OwnCall own = ctx.OwnCallOf(copy.context, touch.context);
  const clang::SourceLocation copy_at = ctx.At(own, copy.context, copy.inner_loc, copy.loc);
  if (it != s.buffers.end() && it->second.allocated.isValid()) {
    const BufferInfo& b = it->second;
    ctx.Note(d, ctx.At(own, b.context, b.allocated_inner, b.allocated),
             "`" + name + "` is pageable: allocate it with cudaMallocHost or register it with cudaHostRegister");
  }
  ctx.NoteHelper(d, copy.helper, copy.inner_loc, copy_at, copy.what);
  const std::string touched = touch.what == kEndOfScope ? "`" + name + "` goes out of scope here, freeing it"
                                                       : "the host " + touch.what + " `" + name + "` here";
  ctx.Note(d, ctx.At(own, touch.context, touch.inner_loc, touch.loc),
           touched + "; synchronize with " + CheckContext::StreamName(s, copy.stream) + " first");
  if (own) ctx.MoveIntoHelper(d, copy_at, copy.loc, own.helper->helper);
  ctx.Emit(std::move(d));
}

}  // namespace

void PageableAsyncCopyCheck::OnHostAccess(const HostAccess& access, const FlowState& before, CheckContext& ctx) {
  for (const Conflict& c : ctx.HostConflictsOf(access, before)) {
    if (!c.earlier->staged_into_pageable || ctx.Saturated()) continue;
    const Touch touch{access.access.mode == AccessMode::kRead ? "reads" : "writes", access.loc, access.inner_loc,
                      access.context};
    Report(*c.earlier, c.earlier_access, touch, before, ctx, rule());
  }
}

void PageableAsyncCopyCheck::OnFree(const FreeEvent& free, const FlowState& before, CheckContext& ctx) {
  if (!free.stream.empty()) return;
  for (int id : before.pending) {
    const DeviceOp& op = ctx.ops()[id];
    if (!op.staged_into_pageable || op.captured) continue;
    for (const BufferAccess& a : op.accesses) {
      if (a.ref.base.key != free.ref.base.key || a.mode != AccessMode::kWrite) continue;
      const Touch touch{free.api == kEndOfScope ? kEndOfScope : "frees", free.loc, free.inner_loc, free.context};
      Report(op, a, touch, before, ctx, rule());
      return;
    }
  }
}

}  // namespace streamcheck::lint
