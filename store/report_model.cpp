#include "store/report_model.h"

#include <fmt/format.h>

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
