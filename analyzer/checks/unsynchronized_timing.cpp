#include "analyzer/checks/unsynchronized_timing.h"

#include <algorithm>

namespace streamcheck::lint {

UnsynchronizedTimingCheck::UnsynchronizedTimingCheck() : LintCheck(rules::RuleId::kUnsynchronizedTiming) {}

void UnsynchronizedTimingCheck::OnHostClock(const ClockRead& read, const FlowState& before, CheckContext& ctx) {
  if (!before.since_clock) return;
  for (int id : *before.since_clock) {
    if (before.pending.count(id) == 0) continue;
    const DeviceOp& op = ctx.ops()[id];
    // The read and the work in one call of an inlined helper, the work
    // perhaps in helpers it calls in turn: the helper's own finding, said
    // once inside it for all its calls.
    const CheckContext::OwnCall own = ctx.OwnCallOf(read.context, op.context);
    const clang::SourceLocation at = ctx.At(own, read.context, read.inner_loc, read.loc);
    LintDiagnostic d = ctx.Make(rule(), at,
                                read.api + " reads the host clock while " + op.what + " on " +
                                    CheckContext::StreamName(before, op.stream) +
                                    ", issued since the previous clock read, may still be running");
    d.finding.kind = FindingKind::kUnsynchronizedTiming;
    d.finding.reason = "asynchronous work returns to the host before it finishes";
    d.finding.accesses.push_back(ctx.HostSide(at, AccessMode::kRead, read.api, "clock"));
    ctx.Note(d, ctx.At(own, before.clock_context, before.clock_inner_loc, before.clock_loc),
             "the timed region starts here");
    ctx.Note(d, ctx.At(own, op.context, op.inner_loc, op.loc), "asynchronous work issued here");
    if (own) ctx.MoveIntoHelper(d, at, read.loc, own.helper->helper);  // after the notes: one place for all calls
    ctx.FixBefore(d, at, CheckContext::SyncCode(op.stream));
    ctx.Emit(std::move(d));
    return;
  }
}

void UnsynchronizedTimingCheck::OnElapsedTime(const ElapsedTime& elapsed, const FlowState& before,
                                              CheckContext& ctx) {
  const std::string& stop = elapsed.stop.key;
  if (before.event_recorded.count(stop) == 0 || before.events_host_complete.count(stop) != 0) return;
  // The host has seen all the work the record captured finish (a synchronize
  // of its stream on every path that matters): the event has completed.
  auto captured = before.event_capture.find(stop);
  if (captured != before.event_capture.end() && !captured->second.empty() &&
      std::none_of(captured->second.begin(), captured->second.end(),
                   [&](int id) { return before.pending.count(id) != 0; })) {
    return;
  }
  LintDiagnostic d = ctx.Make(rule(), elapsed.loc,
                              "cudaEventElapsedTime reads event `" + elapsed.stop.text +
                                  "` before the host waited for it; the stop event may not have completed");
  d.finding.kind = FindingKind::kUnsynchronizedTiming;
  d.finding.reason = "cudaEventRecord is asynchronous; without cudaEventSynchronize the event may still be pending";
  d.finding.accesses.push_back(ctx.HostSide(elapsed.loc, AccessMode::kRead, "cudaEventElapsedTime", "read"));
  ctx.Note(d, before.event_recorded.at(stop), "`" + elapsed.stop.text + "` is recorded here");
  ctx.FixBefore(d, elapsed.loc, "cudaEventSynchronize(" + elapsed.stop.text + ");");
  ctx.Emit(std::move(d));
}

}  // namespace streamcheck::lint
