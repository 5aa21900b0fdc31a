#include "analyzer/checks/wait_on_unrecorded_event.h"

namespace streamcheck::lint {

WaitOnUnrecordedEventCheck::WaitOnUnrecordedEventCheck() : LintCheck(rules::RuleId::kWaitOnUnrecordedEvent) {}

void WaitOnUnrecordedEventCheck::OnEventWait(const EventWait& wait, const FlowState& before, CheckContext& ctx) {
  // Events from elsewhere (parameters, members) may have been recorded there.
  if (before.events_created.count(wait.event.key) == 0) return;
  if (before.event_recorded.count(wait.event.key) != 0) return;
  const std::string who = wait.stream.empty() ? "the host" : CheckContext::StreamName(before, wait.stream);
  LintDiagnostic d = ctx.Make(rule(), wait.loc,
                              wait.api + " makes " + who + " wait on event `" + wait.event.text +
                                  "`, which is not recorded on any path before this point; the wait orders nothing");
  d.finding.kind = FindingKind::kUnrecordedEventWait;
  d.finding.reason = "a wait on a never-recorded event completes at once";
  FindingAccess a = ctx.HostSide(wait.loc, AccessMode::kUnknown, wait.api, "wait");
  if (!wait.stream.empty()) {
    a.on_host = false;
    a.stream = who;
  }
  a.api = wait.api;
  d.finding.accesses.push_back(std::move(a));
  ctx.Note(d, wait.loc, "record it first: cudaEventRecord(" + wait.event.text +
                            ", /*producing stream*/) after the work to wait for");
  ctx.Emit(std::move(d));
}

}  // namespace streamcheck::lint
