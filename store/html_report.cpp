#include "store/html_report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>


#include "store/html_timeline.h"
#include "store/source_snippets.h"
#include "store/text_escape.h"

namespace streamcheck::store {
namespace {

constexpr std::string_view kStyle = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; }
.finding { border: 1px solid #ccc; border-radius: 6px; padding: 1em; margin-bottom: 2em; }
.error { border-left: 6px solid #c62828; } .warning, .note { border-left: 6px solid #f9a825; }
.meta { color: #555; } .why, .fix { margin: .4em 0; } .fix { color: #1b5e20; }
.timeline { display: block; margin: 1em 0; overflow: visible; font-size: 12px; }
.lane-bg { fill: #f5f5f5; } .lane-label { fill: #333; font-weight: 600; }
.op rect { fill: #e3f2fd; stroke: #1565c0; } .op.sync rect { fill: #e8f5e9; stroke: #2e7d32; }
.op.racing rect { fill: #ffebee; stroke: #c62828; stroke-width: 2.5; }
.op text { fill: #111; } .op .mode { fill: #555; font-size: 10px; }
.sync-edge { stroke: #2e7d32; stroke-width: 2; }
.missing-edge { stroke: #c62828; stroke-width: 2; stroke-dasharray: 6 4; }
.missing-label { fill: #c62828; font-size: 11px; } .axis { fill: #777; }
table.stack { border-collapse: collapse; font: 12px/1.3 ui-monospace, monospace; }
table.stack td { padding: 1px 8px; vertical-align: top; }
.source { color: #6a1b9a; white-space: pre; }
)css";

void WriteStack(const std::vector<ResolvedFrame>& stack, SourceSnippets& sources, std::ostream& out) {
  if (stack.empty()) {
    out << "<p class=\"meta\">no stack recorded</p>\n";
    return;
  }
  out << "<table class=\"stack\">\n";
  for (size_t i = 0; i < stack.size(); ++i) {
    const ResolvedFrame& f = stack[i];
    std::string source = sources.Line(f.file, f.line);
    fmt::print(out, "<tr><td>#{}</td><td>{}</td><td>{}</td></tr>\n", i,
               HtmlEscape(f.function.empty() ? Hex(f.pc) : f.function), HtmlEscape(FrameLocation(f)));
    if (!source.empty())
      fmt::print(out, "<tr><td></td><td colspan=\"2\" class=\"source\">{}</td></tr>\n",
                 HtmlEscape(EscapeControl(source)));
  }
  out << "</table>\n";
}

void WriteFinding(const StoredFinding& s, SourceSnippets& sources, std::ostream& out) {
  const Finding f = EscapedFinding(s.finding);
  fmt::print(out, "<section class=\"finding {}\" id=\"finding-{}\">\n", HtmlEscape(s.severity), s.id);
  fmt::print(out, "<h2>{}: {} <code>[{}]</code></h2>\n", HtmlEscape(s.severity),
             HtmlEscape(f.message), HtmlEscape(f.rule));
  fmt::print(out, "<p class=\"meta\">{}, confidence {}, seen {} time(s), run {}, fingerprint <code>{}</code></p>\n",
             FindingKindName(f.kind), ConfidenceName(f.confidence), f.count, s.run_id,
             HtmlEscape(f.fingerprint));
  if (f.buffer.size != 0 || f.buffer.address != 0)
    fmt::print(out, "<p class=\"meta\">buffer: {}</p>\n", HtmlEscape(DescribeBuffer(f.buffer)));
  out << TimelineSvg(f);
  if (!f.reason.empty()) fmt::print(out, "<p class=\"why\"><b>Why:</b> {}</p>\n", HtmlEscape(f.reason));
  if (!f.fix.empty()) fmt::print(out, "<p class=\"fix\"><b>Fix:</b> {}</p>\n", HtmlEscape(f.fix));
  for (const FindingAccess& a : f.accesses) {
    fmt::print(out, "<h3>{} access: {}</h3>\n", HtmlEscape(a.role.empty() ? "an" : a.role),
               HtmlEscape(DescribeAccess(a)));
    WriteStack(a.stack, sources, out);
  }
  if (!f.buffer.allocation_stack.empty()) {
    out << "<h3>allocation</h3>\n";
    WriteStack(f.buffer.allocation_stack, sources, out);
  }
  out << "</section>\n";
}

}  // namespace

bool WriteHtmlReport(const ReportData& data, std::ostream& out) {
  // The heading counts the findings: a first pass counts them (reading them
  // twice keeps memory bounded, where holding them would not).
  size_t count = 0;
  if (!data.ForEach([&](const StoredFinding&) { ++count; })) return false;
  const std::string db = HtmlEscape(EscapeControl(data.db_path));
  fmt::print(out,
             "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
             "<title>streamcheck report: {}</title>\n<style>{}</style></head><body>\n"
             "<h1>streamcheck: {} finding(s) in {}</h1>\n",
             db, kStyle, count, db);
  for (const StoredRun& r : data.runs)
    fmt::print(out, "<p class=\"meta\">run {} ({}): <code>{}</code> on {} {}</p>\n", r.id,
               HtmlEscape(EscapeControl(r.info.mode)), HtmlEscape(EscapeControl(r.info.command)),
               HtmlEscape(EscapeControl(r.info.host)), HtmlEscape(EscapeControl(r.info.gpu)));
  SourceSnippets sources(data.source_roots);
  const bool ok = data.ForEach([&](const StoredFinding& f) { WriteFinding(f, sources, out); });
  out << "</body></html>\n";
  return ok;
}

}  // namespace streamcheck::store
