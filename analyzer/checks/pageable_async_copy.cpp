#include "analyzer/checks/pageable_async_copy.h"

namespace streamcheck::lint {

PageableAsyncCopyCheck::PageableAsyncCopyCheck() : LintCheck(rules::RuleId::kPageableAsyncCopy) {}

void PageableAsyncCopyCheck::OnAsyncCopy(const AsyncCopy& copy, const FlowState& before, CheckContext& ctx) {
  if (copy.host_info == nullptr || copy.host_info->kind != MemoryKind::kPageableHost) return;
  const DeviceOp& op = *copy.op;
  // Copy and allocation both inside one inlined helper: the finding does not
  // depend on the caller and is reported in the helper itself (analysed on
  // its own), not again at every call.
  if (!op.context.empty() && op.context == copy.host_info->context) return;
  LintDiagnostic d = ctx.Make(rule(), op.loc,
                              op.api + " to pageable host memory `" + copy.host_side.base.text + "` (" +
                                  copy.host_info->allocated_by +
                                  ") is staged and may run synchronously; when the buffer is written is not defined");
  d.finding.kind = FindingKind::kPageableAsyncCopy;
  d.finding.reason = "the CUDA runtime copies pageable memory through a staging buffer";
  BufferAccess a;
  a.ref = copy.host_side;
  a.mode = AccessMode::kWrite;
  d.finding.accesses.push_back(ctx.DeviceSide(op, a, before, "copy"));
  d.finding.buffer.memory_kind = MemoryKind::kPageableHost;
  ctx.SetBuffer(d, copy.host_side, before);
  if (copy.host_info->allocated.isValid()) {
    ctx.Note(d, copy.host_info->allocated,
             "`" + copy.host_side.base.text + "` is pageable: allocate it with cudaMallocHost or register it with "
             "cudaHostRegister");
  }
  ctx.Emit(std::move(d));
}

}  // namespace streamcheck::lint
