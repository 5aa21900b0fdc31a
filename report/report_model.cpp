#include "report/report_model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <utility>

#include "report/finding_words.h"
#include "report/object_names.h"

namespace streamcheck::report {

bool ReportData::ForEach(const FindingVisitor& visit) const {
  if (source) return source(visit);
  for (const store::StoredFinding& f : findings) visit(f);
  return true;
}

std::vector<std::string> UnfinishedRunNotes(const ReportData& data) {
  std::vector<std::string> notes;
  for (const store::StoredRun& r : data.runs)
    if (!r.end_time_ns)
      notes.push_back(fmt::format("run {} ({}: {}) did not finish: no end was recorded (it was killed, or is still "
                                  "running); its findings are those it stored before it stopped",
                                  r.id, r.info.mode, r.info.command));
  return notes;
}

store::StoredFinding InMemoryFinding(const Finding& finding, uint64_t local_id) {
  store::StoredFinding stored;
  stored.local_id = local_id;
  stored.severity = std::string(SeverityOf(finding));
  stored.finding = finding;
  return stored;
}

namespace {

// Whether `later` is the same race as `first` found by another rank of its run.
bool SameRaceOnAnotherRank(const store::StoredFinding& first, const store::StoredFinding& later) {
  return !first.ranks.empty() && !later.ranks.empty() && first.run_id == later.run_id &&
         first.finding.fingerprint == later.finding.fingerprint;
}

}  // namespace

void RankFolder::Add(store::StoredFinding& finding) {
  if (pending_ && SameRaceOnAnotherRank(*pending_, finding)) {
    pending_->finding.count += finding.finding.count;
    for (int32_t rank : finding.ranks)
      if (std::find(pending_->ranks.begin(), pending_->ranks.end(), rank) == pending_->ranks.end())
        pending_->ranks.push_back(rank);
    std::sort(pending_->ranks.begin(), pending_->ranks.end());
    return;
  }
  Finish();
  if (finding.ranks.empty()) {
    visit_(finding);
    return;
  }
  pending_ = std::move(finding);
}

void RankFolder::Finish() {
  if (!pending_) return;
  visit_(*pending_);
  pending_.reset();
}

void FoldAcrossRanks(std::vector<store::StoredFinding>* findings) {
  // Each race's findings one after another, where its first one is (what
  // FindingQuery::ranks_together gives a report), then folded as a stream.
  std::map<std::pair<int64_t, std::string>, size_t> first;  // (run, fingerprint) -> its first's index
  std::vector<size_t> group(findings->size());
  for (size_t i = 0; i < findings->size(); ++i) {
    const store::StoredFinding& f = (*findings)[i];
    group[i] = f.ranks.empty() ? i : first.try_emplace({f.run_id, f.finding.fingerprint}, i).first->second;
  }
  std::vector<size_t> order(findings->size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return group[a] < group[b]; });
  std::vector<store::StoredFinding> folded;
  const FindingVisitor keep = [&](const store::StoredFinding& f) { folded.push_back(f); };
  RankFolder folder(keep);
  for (size_t i : order) folder.Add((*findings)[i]);
  folder.Finish();
  *findings = std::move(folded);
}

std::string DescribeRanks(const store::StoredFinding& finding) {
  if (finding.ranks.empty()) return {};
  return fmt::format("rank{} {}", finding.ranks.size() == 1 ? "" : "s", fmt::join(finding.ranks, ", "));
}

const ResolvedFrame* PrimaryFrame(const FindingAccess& access) {
  if (const ResolvedFrame* frame = ProgramFrame(access.stack)) return frame;
  return access.stack.empty() ? nullptr : &access.stack.front();
}

const ResolvedFrame* LocatingFrame(const Finding& f) {
  auto with_file = [](const ResolvedFrame* frame) { return frame && !frame->file.empty() ? frame : nullptr; };
  if (!f.accesses.empty())
    if (const ResolvedFrame* later = with_file(PrimaryFrame(f.accesses.back()))) return later;
  for (const FindingAccess& a : f.accesses)
    if (const ResolvedFrame* frame = with_file(PrimaryFrame(a))) return frame;
  return with_file(ProgramFrame(f.buffer.allocation_stack));
}

std::string FindingPlace(const Finding& f) {
  if (const ResolvedFrame* frame = LocatingFrame(f)) return FrameLocation(*frame);
  std::string op;
  std::string module;
  if (!f.accesses.empty()) {
    const FindingAccess& later = f.accesses.back();
    op = DisplayOpName(later.op.empty() ? later.api : later.op);
    for (const ResolvedFrame& frame : later.stack)
      if (!frame.module.empty()) {
        module = Basename(frame.module);
        break;
      }
  }
  const std::string where = module.empty() ? "(no source line)" : "(no source line, in " + module + ")";
  return op.empty() ? where : op + " " + where;
}

std::string FrameLocation(const ResolvedFrame& frame) { return FrameWhere(frame); }

std::string Hex(uint64_t value) { return fmt::format("{:#x}", value); }

std::string LaneName(const FindingAccess& access) {
  if (access.on_host) return fmt::format("host thread {}", access.thread);
  if (!access.stream.empty()) return access.stream;
  return fmt::format("stream {}", Hex(access.stream_handle));
}

std::string DescribeAccess(const FindingAccess& a) {
  const std::string op = DisplayOpName(a.op.empty() ? a.api : a.op);
  std::string what = a.framework_op.empty() ? fmt::format("{} by {}", AccessModeName(a.mode), op)
                                            : fmt::format("{} by {} ({})", AccessModeName(a.mode), a.framework_op, op);
  const std::string in = a.scope.empty() ? "" : ", in " + a.scope;
  if (a.on_host) return what + fmt::format(" on host thread {}{}", a.thread, in);
  return what + fmt::format(" on {}, device {}, thread {}{}", StreamName(a), a.device, a.thread, in);
}

std::string TestOf(const Finding& f) {
  if (f.accesses.empty()) return "";
  return f.accesses[RacingPair(f).second].scope;
}

std::string TestHeading(const std::string& test) { return test.empty() ? "outside every test" : "test " + test; }

std::string DescribeBuffer(const FindingBuffer& b) {
  std::string kind(MemoryKindName(b.memory_kind));
  std::replace(kind.begin(), kind.end(), '_', ' ');
  std::string text = fmt::format("{} of {} memory at {}", HumanSize(b.size), kind, Hex(b.address));
  if (b.known_allocation && !b.allocated_by.empty()) {
    text += ", allocated by " + DisplayOpName(b.allocated_by);
    if (const ResolvedFrame* at = ProgramFrame(b.allocation_stack)) text += " at " + FrameWhere(*at);
  }
  return text;
}

}  // namespace streamcheck::report
