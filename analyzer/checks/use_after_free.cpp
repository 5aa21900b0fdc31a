#include "analyzer/checks/use_after_free.h"

namespace streamcheck::lint {

UseAfterFreeCheck::UseAfterFreeCheck() : LintCheck(rules::RuleId::kUseAfterFree) {}

namespace {
void Report(const BufferRef& ref, clang::SourceLocation at, const std::string& what, FindingAccess access,
            const FlowState& s, CheckContext& ctx, rules::RuleId rule) {
  auto it = s.freed.find(ref.base.key);
  // `chunks[0]` after a loop freed every element (`chunks[*]`).
  if (it == s.freed.end()) it = s.freed.find(AnyElementKey(ref.base.key));
  if (it == s.freed.end()) return;
  LintDiagnostic d = ctx.Make(rule, at, what + " uses `" + ref.base.text + "` after it was freed");
  d.finding.kind = FindingKind::kUseAfterFree;
  d.finding.reason = "the buffer is freed on every path to this use";
  d.finding.accesses.push_back(std::move(access));
  ctx.SetBuffer(d, ref, s);
  ctx.Note(d, it->second, "freed here");
  ctx.Emit(std::move(d));
}
}  // namespace

void UseAfterFreeCheck::OnDeviceOp(const DeviceOp& op, const FlowState& before, CheckContext& ctx) {
  for (const BufferAccess& a : op.accesses) {
    if (before.freed.count(a.ref.base.key) != 0 || before.freed.count(AnyElementKey(a.ref.base.key)) != 0) {
      Report(a.ref, op.loc, op.what, ctx.DeviceSide(op, a, before, "use"), before, ctx, rule());
      return;
    }
  }
}

void UseAfterFreeCheck::OnHostAccess(const HostAccess& access, const FlowState& before, CheckContext& ctx) {
  Report(access.access.ref, access.loc, "the host", ctx.HostSide(access.loc, access.access.mode, "host access", "use"),
         before, ctx, rule());
}

}  // namespace streamcheck::lint
