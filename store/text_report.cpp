#include "store/text_report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace streamcheck::store {
namespace {

void WriteStack(const std::vector<ResolvedFrame>& stack, std::ostream& out) {
  for (size_t i = 0; i < stack.size(); ++i) {
    const ResolvedFrame& f = stack[i];
    fmt::print(out, "      #{} {} {}\n", i, f.function.empty() ? Hex(f.pc) : f.function,
               FrameLocation(f));
  }
}

void WriteFinding(const StoredFinding& stored, std::ostream& out) {
  const Finding& f = stored.finding;
  const ResolvedFrame* where = nullptr;
  if (!f.accesses.empty()) where = PrimaryFrame(f.accesses.back());
  std::string location = where ? FrameLocation(*where) : "<unknown>";
  fmt::print(out, "{}: {}: {} [{}]\n", location, stored.severity, f.message, f.rule);
  fmt::print(out, "  {}, confidence {}, seen {} time{}\n", FindingKindName(f.kind),
             ConfidenceName(f.confidence), f.count, f.count == 1 ? "" : "s");
  if (f.buffer.size != 0 || f.buffer.address != 0)
    fmt::print(out, "  buffer: {}\n", DescribeBuffer(f.buffer));
  if (!f.buffer.allocation_stack.empty()) WriteStack(f.buffer.allocation_stack, out);
  for (const FindingAccess& a : f.accesses) {
    const ResolvedFrame* frame = PrimaryFrame(a);
    fmt::print(out, "{}: note: {} access: {}\n", frame ? FrameLocation(*frame) : "<unknown>",
               a.role.empty() ? "an" : a.role, DescribeAccess(a));
    WriteStack(a.stack, out);
  }
  if (!f.reason.empty()) fmt::print(out, "  why: {}\n", f.reason);
  if (!f.fix.empty()) fmt::print(out, "  fix: {}\n", f.fix);
  fmt::print(out, "  fingerprint: {}\n\n", f.fingerprint);
}

}  // namespace

void WriteTextReport(const ReportData& data, std::ostream& out) {
  size_t errors = 0, warnings = 0;
  for (const StoredFinding& f : data.findings) {
    WriteFinding(f, out);
    (f.severity == "error" ? errors : warnings) += 1;
  }
  // `run` and `replay` report the run they just made and name no runs.
  const std::string runs = data.runs.empty() ? ""
                           : fmt::format("{} run{} of ", data.runs.size(), data.runs.size() == 1 ? "" : "s");
  fmt::print(out, "{} finding{} ({} error{}, {} other) in {}{}\n", data.findings.size(),
             data.findings.size() == 1 ? "" : "s", errors, errors == 1 ? "" : "s", warnings, runs, data.db_path);
}

}  // namespace streamcheck::store
