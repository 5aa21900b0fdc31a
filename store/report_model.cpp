#include "store/report_model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <utility>

namespace streamcheck::store {

bool ReportData::ForEach(const FindingVisitor& visit) const {
  if (source) return source(visit);
  for (const StoredFinding& f : findings) visit(f);
  return true;
}

StoredFinding InMemoryFinding(const Finding& finding, uint64_t local_id) {
  StoredFinding stored;
  stored.local_id = local_id;
  stored.severity = std::string(SeverityOf(finding));
  stored.finding = finding;
  return stored;
}

namespace {

// Whether `later` is the same race as `first` found by another rank of its run.
bool SameRaceOnAnotherRank(const StoredFinding& first, const StoredFinding& later) {
  return !first.ranks.empty() && !later.ranks.empty() && first.run_id == later.run_id &&
         first.finding.fingerprint == later.finding.fingerprint;
}

}  // namespace

void RankFolder::Add(StoredFinding& finding) {
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

void FoldAcrossRanks(std::vector<StoredFinding>* findings) {
  // Each race's findings one after another, where its first one is (what
  // FindingQuery::ranks_together gives a report), then folded as a stream.
  std::map<std::pair<int64_t, std::string>, size_t> first;  // (run, fingerprint) -> its first's index
  std::vector<size_t> group(findings->size());
  for (size_t i = 0; i < findings->size(); ++i) {
    const StoredFinding& f = (*findings)[i];
    group[i] = f.ranks.empty() ? i : first.try_emplace({f.run_id, f.finding.fingerprint}, i).first->second;
  }
  std::vector<size_t> order(findings->size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return group[a] < group[b]; });
  std::vector<StoredFinding> folded;
  const FindingVisitor keep = [&](const StoredFinding& f) { folded.push_back(f); };
  RankFolder folder(keep);
  for (size_t i : order) folder.Add((*findings)[i]);
  folder.Finish();
  *findings = std::move(folded);
}

std::string DescribeRanks(const StoredFinding& finding) {
  if (finding.ranks.empty()) return {};
  return fmt::format("rank{} {}", finding.ranks.size() == 1 ? "" : "s", fmt::join(finding.ranks, ", "));
}

const ResolvedFrame* PrimaryFrame(const FindingAccess& access) {
  for (const ResolvedFrame& frame : access.stack)
    if (!frame.file.empty()) return &frame;
  return access.stack.empty() ? nullptr : &access.stack.front();
}

std::string FrameLocation(const ResolvedFrame& frame) {
  if (frame.file.empty()) return "<unknown>";
  if (frame.line == 0) return frame.file;
  if (frame.column == 0) return fmt::format("{}:{}", frame.file, frame.line);
  return fmt::format("{}:{}:{}", frame.file, frame.line, frame.column);
}

std::string Hex(uint64_t value) { return fmt::format("{:#x}", value); }

std::string LaneName(const FindingAccess& access) {
  if (access.on_host) return fmt::format("host thread {}", access.thread);
  if (!access.stream.empty()) return access.stream;
  return fmt::format("stream {}", Hex(access.stream_handle));
}

std::string DescribeAccess(const FindingAccess& a) {
  std::string what = fmt::format("{} by {}", AccessModeName(a.mode), a.op.empty() ? a.api : a.op);
  if (!a.framework_op.empty()) what += fmt::format(" ({})", a.framework_op);
  if (a.on_host) return what + fmt::format(" on host thread {}", a.thread);
  return what + fmt::format(" on {}, device {}, thread {}", LaneName(a), a.device, a.thread);
}

std::string DescribeBuffer(const FindingBuffer& b) {
  std::string text = fmt::format("{} bytes at {} ({})", b.size, Hex(b.address),
                                 MemoryKindName(b.memory_kind));
  if (b.known_allocation && !b.allocated_by.empty()) text += ", allocated by " + b.allocated_by;
  return text;
}

}  // namespace streamcheck::store
