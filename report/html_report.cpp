#include "report/html_report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "report/finding_words.h"
#include "report/html_style.h"
#include "report/html_timeline.h"
#include "report/object_names.h"
#include "report/source_snippets.h"
#include "report/stack_folding.h"
#include "report/text_escape.h"

namespace streamcheck::report {
namespace {

constexpr uint32_t kContextLines = 2;  // source lines shown above and below a finding's line
constexpr size_t kSidesFrames = 8;     // program frames a side shows before "more"

std::string Plural(size_t n, std::string_view word) {
  const char* ending = n == 1 ? "" : word.ends_with('s') ? "es" : "s";  // "2 processes"
  return fmt::format("{} {}{}", n, word, ending);
}

// Escaped text with `backticked` parts set as code.
std::string WithCode(const std::string& text) {
  std::string out;
  bool in_code = false;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != '`') continue;
    const std::string part = HtmlEscape(text.substr(start, i - start));
    out += in_code ? "<code>" + part + "</code>" : part;
    if (i < text.size()) in_code = !in_code;
    start = i + 1;
  }
  return out;
}

// Where a finding points, for the overview: its program line, or what ran
// without one ("scale (no source line)").
std::string FindingLocation(const Finding& f) {
  const ResolvedFrame* frame = LocatingFrame(f);
  return frame ? ShortLocation(frame) : FindingPlace(f);
}

struct Overview {
  size_t findings = 0;
  uint64_t occurrences = 0;
  std::map<std::string, size_t> by_severity;
  std::map<std::string, size_t> by_rule;
  std::map<std::string, std::pair<size_t, int64_t>> by_location;  // -> count, first finding's id
  std::map<std::string, std::pair<size_t, int64_t>> by_test;      // the same, by test (docs/SCOPES.md)
  void Add(const store::StoredFinding& s) {
    const Finding f = EscapedFinding(s.finding);
    ++findings;
    occurrences += f.count;
    ++by_severity[s.severity];
    ++by_rule[f.rule];
    const std::string where = FindingLocation(f);
    auto& entry = by_location[where];
    if (entry.first++ == 0) entry.second = s.id;
    auto& test = by_test[TestHeading(TestOf(f))];
    if (test.first++ == 0) test.second = s.id;
  }
};

void WriteLinkedCounts(const char* id, const char* title,
                       const std::map<std::string, std::pair<size_t, int64_t>>& counts, std::ostream& out) {
  fmt::print(out, "<div class=\"panel\" id=\"{}\"><h2>{}</h2><table class=\"counts\">", id, title);
  for (const auto& [name, entry] : counts)
    fmt::print(out, "<tr><td><a href=\"#finding-{}\">{}</a></td><td class=\"n\">{}</td></tr>", entry.second,
               HtmlEscape(name), entry.first);
  out << "</table></div>\n";
}

void WriteCountsTable(const std::map<std::string, size_t>& counts, std::ostream& out) {
  out << "<table class=\"counts\">";
  for (const auto& [name, n] : counts)
    fmt::print(out, "<tr><td>{}</td><td class=\"n\">{}</td></tr>", HtmlEscape(EscapeControl(name)), n);
  out << "</table>\n";
}

void WriteOverview(const ReportData& data, const Overview& o, std::ostream& out) {
  out << "<section class=\"overview\" aria-label=\"overview\">\n";
  // Findings and how bad.
  out << "<div class=\"panel\" id=\"totals\"><h2>Findings</h2>";
  fmt::print(out, "<div class=\"big\">{}</div><p class=\"subtitle\">", o.findings);
  std::string severities;
  for (const auto& [severity, n] : o.by_severity)
    severities += (severities.empty() ? "" : ", ") + HtmlEscape(Plural(n, EscapeControl(severity)));
  fmt::print(out, "{}{}{}</p>", severities, severities.empty() ? "" : "; ", Plural(o.occurrences, "occurrence"));
  out << "<h2>By rule</h2>";
  WriteCountsTable(o.by_rule, out);
  out << "</div>\n";
  // Where, and in which tests (when any finding has one).
  WriteLinkedCounts("locations", "By source location", o.by_location, out);
  if (o.by_test.size() > 1 || (o.by_test.size() == 1 && !o.by_test.count(TestHeading(""))))
    WriteLinkedCounts("tests", "By test", o.by_test, out);
  // Runs, processes, ranks.
  out << "<div class=\"panel\" id=\"runs\"><h2>Runs</h2>";
  fmt::print(out, "<div class=\"big\">{}</div><ul class=\"runs\">", data.runs.size());
  for (const store::StoredRun& r : data.runs) {
    std::string processes;
    if (auto it = data.processes.find(r.id); it != data.processes.end()) {
      std::set<int32_t> ranks;
      for (const store::StoredProcess& p : it->second)
        if (p.info.rank >= 0) ranks.insert(p.info.rank);
      processes = ", " + Plural(it->second.size(), "process");
      if (!ranks.empty())
        processes += fmt::format(" ({} {}–{})", ranks.size() == 1 ? "rank" : "ranks", *ranks.begin(), *ranks.rbegin());
    }
    fmt::print(out, "<li>run {} ({}{}): <code>{}</code>{}{}</li>", r.id, HtmlEscape(EscapeControl(r.info.mode)),
               processes, HtmlEscape(EscapeControl(r.info.command)),
               r.info.gpu.empty() ? "" : " on " + HtmlEscape(EscapeControl(r.info.gpu)),
               r.end_time_ns ? ""
                             : " <strong class=\"unfinished\">did not finish</strong>: no end was recorded (it was "
                               "killed, or is still running); its findings are those it stored before it stopped");
  }
  out << "</ul></div>\n</section>\n";
}

// The program line of one side with a few lines around it, when it may be quoted.
void WriteSource(const FindingAccess& a, SourceSnippets& sources, std::ostream& out) {
  const ResolvedFrame* frame = ProgramFrame(a.stack);
  if (frame == nullptr) return;
  const auto lines = sources.Context(frame->file, frame->line, kContextLines);
  if (lines.empty()) return;
  fmt::print(out, "<figure class=\"source\"><figcaption><b>{}</b> · {} · <span title=\"{}\">{}</span></figcaption>"
                  "<pre class=\"code\">",
             HtmlEscape(a.role), HtmlEscape(OperationName(a)), HtmlEscape(frame->file),
             HtmlEscape(ShortLocation(frame)));
  for (const auto& [number, text] : lines)
    fmt::print(out, "<span class=\"line{}\"><span class=\"ln\">{}</span>{}</span>", number == frame->line ? " hit" : "",
               number, HtmlEscape(EscapeControl(text)));
  out << "</pre></figure>\n";
}

void WriteSources(const Finding& f, SourceSnippets& sources, std::ostream& out) {
  std::string figures;
  std::set<std::string> shown;
  for (const FindingAccess& a : f.accesses) {
    const ResolvedFrame* frame = ProgramFrame(a.stack);
    if (frame == nullptr || !shown.insert(FrameWhere(*frame)).second) continue;
    std::ostringstream one;
    WriteSource(a, sources, one);
    if (one.str().empty()) continue;
    figures += one.str();
  }
  if (figures.empty()) return;
  out << "<div class=\"sources\">\n" << figures << "</div>\n";
}

void WriteStack(const std::vector<ResolvedFrame>& stack, std::ostream& out) {
  if (stack.empty()) {
    out << "<p class=\"meta\">no stack recorded</p>\n";
    return;
  }
  const FoldedStack folded = FoldStack(stack, kSidesFrames);
  auto folded_item = [&](size_t n) {
    if (n) fmt::print(out, "<li class=\"folded\">… {} folded</li>", Plural(n, "library frame"));
  };
  out << "<ol class=\"stack\">";
  for (const ShownFrame& shown : folded.shown) {
    folded_item(shown.folded_before);
    const ResolvedFrame& f = stack[shown.index];
    fmt::print(out, "<li title=\"{}\">#{} {} <b>{}</b></li>", HtmlEscape(f.function), shown.index,
               HtmlEscape(f.function.empty() ? "" : DisplayOpName(f.function)), HtmlEscape(FrameWhere(f)));
  }
  folded_item(folded.folded_after);
  out << "</ol>\n";
  if (folded.folded() == 0) return;
  // Every frame, one more click away.
  out << "<details><summary class=\"meta\">all " << stack.size() << " frames</summary><ol class=\"stack\">";
  for (size_t i = 0; i < stack.size(); ++i)
    fmt::print(out, "<li>#{} {} <b>{}</b></li>", i, HtmlEscape(stack[i].function), HtmlEscape(FrameWhere(stack[i])));
  out << "</ol></details>\n";
}

void WriteSide(const FindingAccess& a, const std::string& lane, std::ostream& out) {
  const std::string kernel = DisplayOpName(a.op.empty() ? a.api : a.op);
  std::string what = HtmlEscape(OperationName(a));
  if (const std::string under = KernelUnder(a); !under.empty()) what += " → " + HtmlEscape(under);
  const std::string at = ShortLocation(ProgramFrame(a.stack));
  fmt::print(out,
             "<details class=\"side\"><summary><span class=\"role\">{}</span>: {} by {}{}, on {}{}</summary>"
             "<div class=\"side-body\">",
             HtmlEscape(a.role), HtmlEscape(ModeInWords(a.mode)), what, at.empty() ? "" : " at " + HtmlEscape(at),
             HtmlEscape(StreamInSentence(lane)), a.scope.empty() ? "" : ", in <code>" + HtmlEscape(a.scope) + "</code>");
  if (!a.op.empty() && a.op != kernel)
    fmt::print(out, "<div>full name: <code class=\"fullname\">{}</code></div>", HtmlEscape(a.op));
  if (!a.api.empty()) fmt::print(out, "<div>API: <code>{}</code></div>", HtmlEscape(a.api));
  fmt::print(out, "<div>stream: {}</div>", HtmlEscape(StreamDetail(a)));
  fmt::print(out, "<div>bytes: {} at <code>{}</code>, device {}, host thread {}, trace record {}</div>", a.size,
             Hex(a.address), a.device, a.thread, a.trace_index);
  WriteStack(a.stack, out);
  out << "</div></details>\n";
}

void WriteFinding(const store::StoredFinding& s, SourceSnippets& sources, std::ostream& out) {
  const Finding f = EscapedFinding(s.finding);
  const FindingWords words = DescribeFinding(f);
  const LaneNames lanes = NameLanes(f);
  fmt::print(out, "<article class=\"card {}\" id=\"finding-{}\">\n", HtmlEscape(s.severity), s.id);
  fmt::print(out,
             "<div class=\"tags\"><span class=\"badge\">{}</span><code>{}</code>{}"
             "<span>confidence {}</span><span>seen {}</span><span>run {}</span>{}</div>\n",
             HtmlEscape(s.severity), HtmlEscape(f.rule),
             FindingKindName(f.kind) == f.rule ? "" : fmt::format("<span>{}</span>", FindingKindName(f.kind)),
             ConfidenceName(f.confidence),
             f.count == 1 ? "once" : fmt::format("{} times", f.count), s.run_id,
             // The same race on several ranks of a distributed job is one finding (report_model.h RankFolder).
             s.ranks.empty() ? ""
                             : fmt::format("<span>on {}{}</span>", DescribeRanks(s),
                                           s.host.empty() ? "" : " (host " + HtmlEscape(EscapeControl(s.host)) + ")"));
  // A heading starts with a capital; "the host" may, an identifier may not.
  std::string headline = words.headline;
  if (headline.rfind("the ", 0) == 0) headline[0] = 'T';
  fmt::print(out, "<h2 class=\"headline\">{}</h2>\n", HtmlEscape(headline));
  if (!words.why.empty()) fmt::print(out, "<p class=\"why\"><span class=\"label\">Why</span>{}</p>\n", WithCode(words.why));
  if (!words.fix.empty()) fmt::print(out, "<p class=\"fix\"><span class=\"label\">Fix</span>{}</p>\n", WithCode(words.fix));
  WriteSources(f, sources, out);
  out << TimelineSvg(f);
  if (f.accesses.size() >= 2)
    out << "<p class=\"legend\">Each lane is a stream or host thread, in trace order left to right; red boxes are the "
           "two accesses, the dashed red arrow the ordering that is missing, green boxes and arrows the "
           "synchronization that did happen. Hover for details.</p>\n";
  for (size_t i = 0; i < f.accesses.size(); ++i) WriteSide(f.accesses[i], lanes.accesses[i], out);
  if (f.buffer.size != 0 || f.buffer.address != 0) {
    fmt::print(out, "<details class=\"side\"><summary><span class=\"role\">memory</span>: {}</summary>"
                    "<div class=\"side-body\">",
               HtmlEscape(DescribeBuffer(f.buffer)));
    WriteStack(f.buffer.allocation_stack, out);
    out << "</div></details>\n";
  }
  for (const FindingAccess& sync : f.syncs) {
    fmt::print(out, "<details class=\"side\"><summary><span class=\"role\">sync</span>: {}</summary>"
                    "<div class=\"side-body\">",
               HtmlEscape(DescribeSync(sync)));
    if (!sync.stream_kind.empty()) fmt::print(out, "<div>stream: {}</div>", HtmlEscape(StreamDetail(sync)));
    WriteStack(sync.stack, out);
    out << "</div></details>\n";
  }
  fmt::print(out,
             "<details class=\"meta\"><summary>fingerprint <code>{}</code> · the engine's own words</summary>"
             "<p>{}</p><p>{}</p><p>{}</p></details>\n",
             HtmlEscape(f.fingerprint), HtmlEscape(f.message), HtmlEscape(f.reason), HtmlEscape(f.fix));
  out << "</article>\n";
}

}  // namespace

bool WriteHtmlReport(const ReportData& data, std::ostream& out) {
  // The overview comes first: a first pass gathers it (reading the findings
  // twice keeps memory bounded, where holding them would not).
  Overview overview;
  if (!data.ForEach([&](const store::StoredFinding& f) { overview.Add(f); })) return false;
  const std::string db = HtmlEscape(EscapeControl(data.db_path));
  fmt::print(out,
             "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
             "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
             "<title>streamcheck report: {}</title>\n<style>{}</style></head><body><main>\n"
             "<h1>streamcheck: {}</h1><p class=\"subtitle\">in <code>{}</code></p>\n",
             db, kHtmlStyle, Plural(overview.findings, "finding"), db);
  WriteOverview(data, overview, out);
  SourceSnippets sources(data.source_roots);
  std::optional<std::string> group;  // report --group-by test: the test whose findings are being written
  const bool ok = data.ForEach([&](const store::StoredFinding& f) {
    if (data.group_by_test) {
      const std::string test = EscapeControl(TestOf(f.finding));
      if (!group || *group != test)
        fmt::print(out, "<h2 class=\"test-group\">{}</h2>\n", HtmlEscape(TestHeading(test)));
      group = test;
    }
    WriteFinding(f, sources, out);
  });
  out << "</main></body></html>\n";
  return ok;
}

}  // namespace streamcheck::report
