#include "store/text_report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <map>
#include <string>

#include "store/text_escape.h"

namespace streamcheck::store {
namespace {

void WriteStack(const std::vector<ResolvedFrame>& stack, std::ostream& out) {
  for (size_t i = 0; i < stack.size(); ++i) {
    const ResolvedFrame& f = stack[i];
    fmt::print(out, "      #{} {} {}\n", i, f.function.empty() ? Hex(f.pc) : f.function,
               FrameLocation(f));
  }
}

// Where the diagnostic points: the later access, the one that races.
std::string Location(const Finding& f) {
  const ResolvedFrame* where = f.accesses.empty() ? nullptr : PrimaryFrame(f.accesses.back());
  return where ? FrameLocation(*where) : "<unknown>";
}

void WriteFinding(const StoredFinding& stored, std::ostream& out) {
  const Finding f = EscapedFinding(stored.finding);
  fmt::print(out, "{}: {}: {} [{}]\n", Location(f), EscapeControl(stored.severity), f.message, f.rule);
  fmt::print(out, "  {}, confidence {}, seen {} time{}\n", FindingKindName(f.kind),
             ConfidenceName(f.confidence), f.count, f.count == 1 ? "" : "s");
  if (!stored.ranks.empty())
    fmt::print(out, "  on {}{}\n", DescribeRanks(stored),
               stored.host.empty() ? "" : " (host " + EscapeControl(stored.host) + ")");
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

// What an access did, short: the framework op when there is one (aten::sum
// says more than a 300-character kernel name), else the kernel or API.
std::string OperationLabel(const FindingAccess& a) {
  constexpr size_t kMaxLength = 60;
  std::string label = !a.framework_op.empty() ? a.framework_op : !a.op.empty() ? a.op : a.api;
  if (label.size() > kMaxLength) label = label.substr(0, kMaxLength - 3) + "...";
  return label;
}

void WriteTotals(const ReportData& data, size_t total, size_t errors, std::ostream& out) {
  const size_t others = total - errors;
  // `run` and `replay` report the run they just made and name no runs.
  const std::string runs = data.runs.empty() ? ""
                           : fmt::format("{} run{} of ", data.runs.size(), data.runs.size() == 1 ? "" : "s");
  fmt::print(out, "{} finding{} ({} error{}, {} other) in {}{}\n", total, total == 1 ? "" : "s", errors,
             errors == 1 ? "" : "s", others, runs, EscapeControl(data.db_path));
}

}  // namespace

bool WriteTextReport(const ReportData& data, std::ostream& out) {
  size_t total = 0, errors = 0;
  const bool ok = data.ForEach([&](const StoredFinding& f) {
    WriteFinding(f, out);
    ++total;
    errors += f.severity == "error";
  });
  WriteTotals(data, total, errors, out);
  return ok;
}

bool WriteSummaryReport(const ReportData& data, std::ostream& out) {
  std::map<std::string, size_t> by_rule;
  size_t total = 0, errors = 0;
  const bool ok = data.ForEach([&](const StoredFinding& stored) {
    const Finding f = EscapedFinding(stored.finding);
    std::string operations;
    for (const FindingAccess& a : f.accesses) operations += (operations.empty() ? "" : " vs ") + OperationLabel(a);
    // The kind only where it says more than the rule (read-after-write, ...).
    const std::string_view kind = FindingKindName(f.kind);
    const std::string rule = kind == f.rule ? f.rule : fmt::format("{} ({})", f.rule, kind);
    fmt::print(out, "{}: {}: {}: {}{}{}\n", Location(f), EscapeControl(stored.severity), rule, operations,
               f.count > 1 ? fmt::format(" (seen {} times)", f.count) : "",
               stored.ranks.empty() ? "" : " [" + DescribeRanks(stored) + "]");
    ++by_rule[f.rule];
    ++total;
    errors += stored.severity == "error";
  });
  if (!by_rule.empty()) {
    std::string counts;
    for (const auto& [rule, n] : by_rule) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n, rule);
    fmt::print(out, "by rule: {}\n", counts);
  }
  WriteTotals(data, total, errors, out);
  return ok;
}

}  // namespace streamcheck::store
