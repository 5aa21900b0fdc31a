#include "store/report_model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <utility>

namespace streamcheck::store {

void FoldAcrossRanks(std::vector<StoredFinding>* findings) {
  std::map<std::pair<int64_t, std::string>, size_t> first;  // (run, fingerprint) -> index kept
  std::vector<StoredFinding> kept;
  for (StoredFinding& f : *findings) {
    if (f.ranks.empty()) {
      kept.push_back(std::move(f));
      continue;
    }
    auto [it, inserted] = first.try_emplace({f.run_id, f.finding.fingerprint}, kept.size());
    if (inserted) {
      kept.push_back(std::move(f));
      continue;
    }
    StoredFinding& into = kept[it->second];
    into.finding.count += f.finding.count;
    for (int32_t rank : f.ranks)
      if (std::find(into.ranks.begin(), into.ranks.end(), rank) == into.ranks.end()) into.ranks.push_back(rank);
    std::sort(into.ranks.begin(), into.ranks.end());
  }
  *findings = std::move(kept);
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
