#include "report/text_report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <map>
#include <string>

#include "report/finding_words.h"
#include "report/html_timeline.h"
#include "report/kernel_names.h"
#include "report/object_names.h"
#include "report/stack_folding.h"
#include "report/text_escape.h"

namespace streamcheck::report {
namespace {

// Program frames a side shows by default; --verbose shows every frame.
constexpr size_t kFramesShown = 4;

// ANSI colours when asked for (report --color, never under NO_COLOR unless
// --color=always). Applied after escaping, so a name can never bring its own.
class Paint {
 public:
  explicit Paint(bool on) : on_(on) {}
  std::string operator()(const char* code, const std::string& text) const {
    return on_ && !text.empty() ? fmt::format("\033[{}m{}\033[0m", code, text) : text;
  }

 private:
  bool on_;
};
constexpr const char* kBold = "1";
constexpr const char* kDim = "2";
constexpr const char* kGreen = "32";
constexpr const char* kCyan = "36";

const char* SeverityColour(const std::string& severity) {
  return severity == "error" ? "1;31" : severity == "warning" ? "1;33" : "1;36";
}

void WriteStack(const std::vector<ResolvedFrame>& stack, bool verbose, const Paint& paint, std::ostream& out) {
  if (verbose) {
    // Every frame in order; the libraries' dimmed.
    for (size_t i = 0; i < stack.size(); ++i) {
      const ResolvedFrame& f = stack[i];
      const std::string line = fmt::format("#{} {}{}", i, f.function.empty() ? "" : f.function + " ", FrameLocation(f));
      fmt::print(out, "      {}\n", IsProgramFrame(f) ? line : paint(kDim, line + " (library)"));
    }
    return;
  }
  const FoldedStack folded = FoldStack(stack, kFramesShown);
  auto folded_line = [&](size_t n) {
    if (n) fmt::print(out, "      {}\n", paint(kDim, fmt::format("... {} library frame{}", n, n == 1 ? "" : "s")));
  };
  for (const ShownFrame& shown : folded.shown) {
    folded_line(shown.folded_before);
    const ResolvedFrame& f = stack[shown.index];
    const std::string function = f.function.empty() ? "" : ShortFunctionName(f.function) + " ";
    fmt::print(out, "      #{} {}{}\n", shown.index, function, FrameLocation(f));
  }
  folded_line(folded.folded_after);
}

void WriteSide(const FindingAccess& a, const std::string& lane, bool verbose, const Paint& paint,
               std::ostream& out) {
  const std::string kernel = DisplayOpName(a.op.empty() ? a.api : a.op);
  std::string what = OperationName(a);
  if (const std::string under = KernelUnder(a); !under.empty()) what += " -> " + under;
  const std::string mode = ModeInWords(a.mode);
  fmt::print(out, "  {} {} by {} on {}{}\n", paint(kBold, (a.role.empty() ? "access" : a.role) + ":"), mode, what,
             StreamInSentence(lane), a.scope.empty() ? "" : " in " + paint(kCyan, a.scope));
  if (verbose) {
    if (!a.op.empty() && a.op != kernel) fmt::print(out, "      full name: {}\n", a.op);
    if (!a.api.empty()) fmt::print(out, "      api: {}\n", a.api);
    fmt::print(out, "      stream: {}\n", StreamDetail(a));
    fmt::print(out, "      bytes: {} at {}, device {}, host thread {}, trace record {}\n", a.size, Hex(a.address),
               a.device, a.thread, a.trace_index);
  }
  WriteStack(a.stack, verbose, paint, out);
}

void WriteFinding(const store::StoredFinding& stored, const ReportData& data, std::ostream& out) {
  const Paint paint(data.color);
  const Finding f = EscapedFinding(stored.finding);
  const FindingWords words = DescribeFinding(f);
  const std::string severity = EscapeControl(stored.severity);
  fmt::print(out, "{}: {}: {} [{}]\n", paint(kBold, FindingPlace(f)), paint(SeverityColour(severity), severity),
             paint(kBold, words.headline), f.rule);
  if (!words.why.empty()) fmt::print(out, "  {} {}\n", paint(kBold, "why:"), words.why);
  if (!words.fix.empty()) fmt::print(out, "  {} {}\n", paint(kBold, "fix:"), paint(kGreen, words.fix));
  // The same race on several ranks of a distributed job is one finding (report_model.h RankFolder).
  if (!stored.ranks.empty())
    fmt::print(out, "  on {}{}\n", DescribeRanks(stored),
               stored.host.empty() ? "" : " (host " + EscapeControl(stored.host) + ")");
  const LaneNames lanes = NameLanes(f);
  for (size_t i = 0; i < f.accesses.size(); ++i) WriteSide(f.accesses[i], lanes.accesses[i], data.verbose, paint, out);
  if (f.buffer.size != 0 || f.buffer.address != 0) {
    fmt::print(out, "  {} {}\n", paint(kBold, "memory:"), DescribeBuffer(f.buffer));
    if (data.verbose) WriteStack(f.buffer.allocation_stack, true, paint, out);
  }
  if (data.verbose) {
    for (const FindingAccess& s : f.syncs) {
      fmt::print(out, "  {} {}\n", paint(kBold, "sync:"), DescribeSync(s));
      WriteStack(s.stack, false, paint, out);
    }
    fmt::print(out, "  engine: {}\n", f.message);
  }
  fmt::print(out, "  {}\n\n",
             paint(kDim, fmt::format("{}, confidence {}, seen {} time{}, fingerprint {}", FindingKindName(f.kind),
                                     ConfidenceName(f.confidence), f.count, f.count == 1 ? "" : "s",
                                     f.fingerprint)));
}

void WriteTotals(const ReportData& data, size_t total, size_t errors, std::ostream& out) {
  const size_t others = total - errors;
  // `run` and `replay` report the run they just made and name no runs.
  const std::string runs = data.runs.empty() ? ""
                           : fmt::format("{} run{} of ", data.runs.size(), data.runs.size() == 1 ? "" : "s");
  fmt::print(out, "{} finding{} ({} error{}, {} other) in {}{}\n", total, total == 1 ? "" : "s", errors,
             errors == 1 ? "" : "s", others, runs, EscapeControl(data.db_path));
  for (const std::string& note : UnfinishedRunNotes(data)) fmt::print(out, "note: {}\n", EscapeControl(note));
}

// report --group-by test: a heading where a test's findings begin (they
// come ordered by test), and the counts by test at the end.
class TestGroups {
 public:
  TestGroups(const ReportData& data, std::ostream& out) : on_(data.group_by_test), paint_(data.color), out_(out) {}
  void Next(const store::StoredFinding& f) {
    if (!on_) return;
    const std::string test = EscapeControl(TestOf(f.finding));
    auto [it, added] = counts_.try_emplace(test, 0);
    ++it->second;
    if (!added && test == current_) return;
    current_ = test;
    fmt::print(out_, "{}\n", paint_(kBold, "== " + TestHeading(test) + " =="));
  }
  void WriteCounts() {
    if (!on_ || counts_.empty()) return;
    std::string counts;
    for (const auto& [test, n] : counts_)
      counts += fmt::format("{}{} in {}", counts.empty() ? "" : ", ", n, TestHeading(test));
    fmt::print(out_, "{} {}\n", paint_(kCyan, "by test:"), counts);
  }

 private:
  bool on_;
  Paint paint_;
  std::ostream& out_;
  std::string current_;
  std::map<std::string, size_t> counts_;
};

}  // namespace

bool WriteTextReport(const ReportData& data, std::ostream& out) {
  size_t total = 0, errors = 0;
  TestGroups groups(data, out);
  const bool ok = data.ForEach([&](const store::StoredFinding& f) {
    groups.Next(f);
    WriteFinding(f, data, out);
    ++total;
    errors += f.severity == "error";
  });
  groups.WriteCounts();
  WriteTotals(data, total, errors, out);
  return ok;
}

bool WriteSummaryReport(const ReportData& data, std::ostream& out) {
  const Paint paint(data.color);
  std::map<std::string, size_t> by_rule;
  size_t total = 0, errors = 0;
  TestGroups groups(data, out);
  const bool ok = data.ForEach([&](const store::StoredFinding& stored) {
    groups.Next(stored);
    const Finding f = EscapedFinding(stored.finding);
    const std::string severity = EscapeControl(stored.severity);
    // Grouped, the heading names the test.
    const std::string test = data.group_by_test ? "" : TestOf(f);
    fmt::print(out, "{}: {}: {} [{}]{}{}{}\n", paint(kBold, FindingPlace(f)), paint(SeverityColour(severity), severity),
               DescribeFinding(f).headline, f.rule, f.count > 1 ? fmt::format(" (seen {} times)", f.count) : "",
               stored.ranks.empty() ? "" : " [" + DescribeRanks(stored) + "]", test.empty() ? "" : " in " + test);
    ++by_rule[f.rule];
    ++total;
    errors += stored.severity == "error";
  });
  if (!by_rule.empty()) {
    std::string counts;
    for (const auto& [rule, n] : by_rule) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n, rule);
    fmt::print(out, "{} {}\n", paint(kCyan, "by rule:"), counts);
  }
  groups.WriteCounts();
  WriteTotals(data, total, errors, out);
  return ok;
}

}  // namespace streamcheck::report
