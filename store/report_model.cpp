#include "store/report_model.h"

#include <fmt/format.h>

#include <algorithm>

#include "store/object_names.h"

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

const ResolvedFrame* PrimaryFrame(const FindingAccess& access) {
  if (const ResolvedFrame* frame = ProgramFrame(access.stack)) return frame;
  return access.stack.empty() ? nullptr : &access.stack.front();
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
  if (a.on_host) return what + fmt::format(" on host thread {}", a.thread);
  return what + fmt::format(" on {}, device {}, thread {}", StreamName(a), a.device, a.thread);
}

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

}  // namespace streamcheck::store
