// The shapes of the text, JSON, SARIF and HTML reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "report/html_report.h"
#include "report/json_report.h"
#include "report/sarif_report.h"
#include "report/text_report.h"
#include "tests/store/store_fixtures.h"

namespace streamcheck::report {
namespace {

using nlohmann::json;
using testing::RaceFinding;

ReportData Data() {
  ReportData data;
  data.db_path = "findings.db";
  store::StoredRun run;
  run.id = 1;
  run.info.mode = "run";
  run.info.command = "python train.py";
  run.end_time_ns = 2;  // it ended (a run without an end is marked unfinished)
  run.exit_status = 0;
  data.runs.push_back(run);
  store::StoredFinding s;
  s.id = 1;
  s.run_id = 1;
  s.severity = "error";
  s.finding = RaceFinding();
  data.findings.push_back(s);
  return data;
}

ReportData NamedData() {
  ReportData data = Data();
  data.findings[0].finding = testing::NamedRaceFinding();
  return data;
}

size_t Lines(const std::string& text) { return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')); }

TEST(TextReport, ReadsLikeACompilerDiagnostic) {
  std::ostringstream out;
  WriteTextReport(NamedData(), out);
  const std::string text = out.str();
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "model.py:11:5: error: aten::sum (model.py:11) reads the 4 KiB buffer from cudaMalloc while "
            "aten::normal_ (model.py:7) on the default stream may still write it [cross-stream-race]");
  EXPECT_NE(text.find("\n  why: the torch.cuda.Stream first used at model.py:11 never waited for the default stream: "
                      "PyTorch creates its streams non-blocking"),
            std::string::npos) << text;
  EXPECT_NE(text.find("\n  fix: before model.py:11, make the side stream wait for the default stream: "
                      "`s.wait_stream(torch.cuda.current_stream())`"),
            std::string::npos) << text;
  EXPECT_NE(text.find("\n  earlier: write by aten::normal_ -> normal_kernel on the default stream\n"
                      "      ... 1 library frame\n      #1 make_input model.py:7\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("\n  later: read by aten::sum -> sum_kernel on the torch.cuda.Stream first used at model.py:11\n"),
            std::string::npos) << text;
  EXPECT_EQ(text.find("0x5555"), std::string::npos) << "the handle is a detail (--verbose)\n" << text;
  EXPECT_NE(text.find("1 finding (1 error"), std::string::npos) << text;
  EXPECT_LE(Lines(text), 15u) << text;
}

// A deep PyTorch stack: the script's lines, the library frames counted.
TEST(TextReport, FoldsLibraryFramesAndVerboseShowsEverything) {
  ReportData data = NamedData();
  FindingAccess& later = data.findings[0].finding.accesses[1];
  later.op = "void at::native::reduce_kernel<512, 1>(at::native::ReduceOp<float>)";
  std::vector<ResolvedFrame> stack;
  for (int i = 0; i < 12; ++i)
    stack.push_back({"_PyEval_EvalFrameDefault", "", 0, 0, 0x500000u + i, "/usr/bin/python3.12", 0x1000u + i});
  stack.insert(stack.begin() + 3, {"step", "/home/me/train.py", 40, 0, 0x10, "", 0});
  stack.push_back({"<module>", "/home/me/train.py", 90, 0, 0x11, "", 0});
  stack.push_back({"torch_function", "/usr/lib/python3/dist-packages/torch/overrides.py", 5, 0, 0x12, "", 0});
  later.stack = stack;
  std::ostringstream out;
  WriteTextReport(data, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("later: read by aten::sum -> reduce_kernel on"), std::string::npos) << text;
  EXPECT_NE(text.find("      ... 3 library frames\n      #3 step /home/me/train.py:40\n      ... 9 library frames\n"
                      "      #13 <module> /home/me/train.py:90\n      ... 1 library frame\n"),
            std::string::npos) << text;
  EXPECT_EQ(text.find("_PyEval_EvalFrameDefault"), std::string::npos) << text;
  EXPECT_LE(Lines(text), 17u) << text;

  data.verbose = true;
  std::ostringstream verbose;
  WriteTextReport(data, verbose);
  const std::string all = verbose.str();
  EXPECT_NE(all.find("full name: void at::native::reduce_kernel<512, 1>(at::native::ReduceOp<float>)"),
            std::string::npos) << all;
  EXPECT_NE(all.find("#0 _PyEval_EvalFrameDefault python3.12+0x1000 (library)"), std::string::npos) << all;
  EXPECT_NE(all.find("handle 0x5555, non-blocking, device 0; created by cudaStreamCreateWithPriority"),
            std::string::npos) << all;
  EXPECT_NE(all.find("sync: cudaEventRecord at model.py:8 recorded event 1 (created at model.py:5) on the default "
                     "stream"),
            std::string::npos) << all;
}

TEST(TextReport, ColoursOnlyWhenAsked) {
  ReportData data = NamedData();
  std::ostringstream plain, coloured;
  WriteTextReport(data, plain);
  EXPECT_EQ(plain.str().find('\033'), std::string::npos);
  data.color = true;
  WriteTextReport(data, coloured);
  EXPECT_NE(coloured.str().find("\033[1;31merror\033[0m"), std::string::npos) << coloured.str();
  data.findings[0].finding.accesses[1].op = "evil\033[2Jkernel";
  std::ostringstream escaped;
  WriteTextReport(data, escaped);
  EXPECT_EQ(escaped.str().find("\033[2J"), std::string::npos) << "a name brings no escape sequence of its own";
}

// A finding stored before schema 4 has no stream kinds or origins: the
// legacy stream is still "the default stream", the others keep their stored
// names, and the engine's reason is the why.
TEST(TextReport, FindingsFromOlderStoresStillRead) {
  std::ostringstream out;
  WriteTextReport(Data(), out);
  const std::string text = out.str();
  EXPECT_NE(text.find("while aten::normal_ (model.py:7) on the default stream may still write it"), std::string::npos)
      << text;
  EXPECT_NE(text.find("on stream 0x5555 (non-blocking)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("why: s was created non-blocking, so it does not wait for the legacy default stream"),
            std::string::npos) << text;
}

// One line per finding in the same words as the text report's headline, then
// the counts by rule and the totals.
TEST(SummaryReport, OneLinePerFindingThenCountsByRule) {
  ReportData data = NamedData();
  data.findings.push_back(data.findings.front());
  data.findings.back().finding.count = 3;
  std::ostringstream out;
  WriteSummaryReport(data, out);
  const std::string expected_line =
      "model.py:11:5: error: aten::sum (model.py:11) reads the 4 KiB buffer from cudaMalloc while "
      "aten::normal_ (model.py:7) on the default stream may still write it [cross-stream-race]";
  EXPECT_EQ(out.str(), expected_line + "\n" + expected_line + " (seen 3 times)\n" +
                           "by rule: 2 cross-stream-race\n2 findings (2 errors, 0 other) in 1 run of findings.db\n");
}

// A frame without debug information still says where it is.
// A finding with no source line anywhere is located by its operation and
// the library it was called from, never by a raw address (issue 41).
TEST(SummaryReport, WithoutASourceLineNamesTheOperationAndItsLibrary) {
  ReportData data = NamedData();
  for (FindingAccess& a : data.findings[0].finding.accesses)
    a.stack = {{"", "", 0, 0, 0x7f0012345678, "/opt/app/libsolver.so", 0x1a2b}};
  data.findings[0].finding.buffer.allocation_stack.clear();
  std::ostringstream out;
  WriteSummaryReport(data, out);
  EXPECT_EQ(out.str().find("<unknown>"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("0x7f0012345678"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().rfind("sum_kernel (no source line, in libsolver.so): error: ", 0), 0u) << out.str();
  // Nothing known of the frames at all: the operation alone.
  for (FindingAccess& a : data.findings[0].finding.accesses) a.stack = {{"", "", 0, 0, 0x7f0012345678, "", 0}};
  std::ostringstream nothing;
  WriteSummaryReport(data, nothing);
  EXPECT_EQ(nothing.str().rfind("sum_kernel (no source line): error: ", 0), 0u) << nothing.str();
  // Any frame of the finding with a source line locates it, the earlier
  // access's or the allocation's when the later one has none.
  data.findings[0].finding.accesses.front().stack = {SourceFrame("main", "app.cu", 12)};
  std::ostringstream earlier;
  WriteSummaryReport(data, earlier);
  EXPECT_EQ(earlier.str().rfind("app.cu:12: error: ", 0), 0u) << earlier.str();
}

TEST(JsonReport, HasTheDocumentedKeys) {
  json report = JsonReport(Data());
  EXPECT_EQ(report["format_version"], kJsonFormatVersion);
  ASSERT_TRUE(report["findings"].is_array());
  ASSERT_EQ(report["findings"].size(), 1u);
  const json& f = report["findings"][0];
  for (const char* key : {"rule", "kind", "severity", "count", "message", "accesses", "reason",
                          "fix", "fingerprint", "confidence", "buffer"})
    EXPECT_TRUE(f.contains(key)) << key;
  EXPECT_EQ(f["rule"], "cross-stream-race");
  EXPECT_EQ(f["kind"], FindingKindName(FindingKind::kReadAfterWrite));
  EXPECT_EQ(f["count"], 1);
  ASSERT_TRUE(f["accesses"].is_array());
  ASSERT_EQ(f["accesses"].size(), 2u);
  const json& a = f["accesses"][0];
  for (const char* key : {"op", "api", "framework_op", "stream", "device", "mode", "address", "size", "stack"})
    EXPECT_TRUE(a.contains(key)) << key;
  EXPECT_EQ(a["op"], "normal_kernel");
  EXPECT_EQ(a["api"], "cudaLaunchKernel");
  EXPECT_EQ(a["framework_op"], "aten::normal_");
  EXPECT_EQ(a["mode"], "write");
  EXPECT_EQ(a["address"], "0x7f0000001000");
  EXPECT_EQ(a["size"], 4096);
  EXPECT_EQ(a["device"], 0);
  ASSERT_EQ(a["stack"].size(), 2u);
  EXPECT_EQ(a["stack"][1]["function"], "make_input");
  EXPECT_EQ(a["stack"][1]["file"], "model.py");
  EXPECT_EQ(a["stack"][1]["line"], 7);
  ReportData no_framework = Data();
  no_framework.findings[0].finding.accesses[0].framework_op.clear();
  EXPECT_TRUE(JsonReport(no_framework)["findings"][0]["accesses"][0]["framework_op"].is_null());
}

// Schema 4's names: the words every report uses, the full names beside the
// short ones, where each stream and event came from, the syncs.
TEST(JsonReport, HasTheNamesAndWordsOfIssue26) {
  const json f = JsonReport(NamedData())["findings"][0];
  EXPECT_EQ(f["headline"],
            "aten::sum (model.py:11) reads the 4 KiB buffer from cudaMalloc while aten::normal_ "
            "(model.py:7) on the default stream may still write it");
  EXPECT_TRUE(f["why"].get<std::string>().starts_with("the torch.cuda.Stream first used at model.py:11 never waited"));
  EXPECT_TRUE(f["how_to_fix"].get<std::string>().starts_with("before model.py:11, make the side stream wait"));
  EXPECT_EQ(f["order_gap"], "non-blocking-stream");
  EXPECT_EQ(f["message"], testing::RaceFinding().message) << "the engine's words stay";
  const json& later = f["accesses"][1];
  EXPECT_EQ(later["op"], "sum_kernel");
  EXPECT_EQ(later["op_short"], "sum_kernel");
  EXPECT_EQ(later["stream_name"], "torch.cuda.Stream first used at model.py:11");
  EXPECT_EQ(later["stream_kind"], "created");
  EXPECT_EQ(later["stream"], "stream 0x5555 (non-blocking)") << "the old key keeps its meaning";
  EXPECT_EQ(later["stream_origin"]["ordinal"], 1);
  EXPECT_EQ(later["stream_origin"]["created_by"], "cudaStreamCreateWithPriority");
  EXPECT_TRUE(later["stream_origin"]["created_at"].empty());
  EXPECT_EQ(later["stream_origin"]["first_op"], "aten::sum");
  EXPECT_EQ(later["stream_origin"]["first_used_at"][0]["line"], 11);
  EXPECT_FALSE(later.contains("event"));
  EXPECT_EQ(f["accesses"][0]["stream_name"], "default stream");
  ASSERT_EQ(f["syncs"].size(), 1u);
  const json& sync = f["syncs"][0];
  EXPECT_EQ(sync["role"], "event record");
  EXPECT_EQ(sync["event"], "0xe1");
  EXPECT_EQ(sync["event_name"], "event 1 (created at model.py:5)");
  EXPECT_EQ(sync["event_origin"]["created_at"][0]["line"], 5);
  EXPECT_EQ(sync["stack"][0]["module"], "libcudart.so.13");
  EXPECT_EQ(sync["stack"][0]["module_offset"], "0x4242");
  EXPECT_TRUE(sync["stack"][1]["module"].is_null());
}

// The parts of the SARIF 2.1.0 schema that code scanning insists on.
void ExpectValidPhysicalLocation(const json& loc) {
  ASSERT_TRUE(loc.contains("physicalLocation")) << loc.dump();
  const json& p = loc["physicalLocation"];
  ASSERT_TRUE(p["artifactLocation"]["uri"].is_string());
  if (p.contains("region")) {
    EXPECT_GE(p["region"]["startLine"].get<int>(), 1);
  }
}

TEST(SarifReport, IsStructurallyValidSarif210) {
  json sarif = SarifReport(Data());
  EXPECT_EQ(sarif["version"], "2.1.0");
  EXPECT_TRUE(sarif["$schema"].get<std::string>().find("sarif-2.1.0") != std::string::npos);
  ASSERT_EQ(sarif["runs"].size(), 1u);
  const json& run = sarif["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "streamcheck");
  const json& rules = run["tool"]["driver"]["rules"];
  ASSERT_TRUE(rules.is_array());
  ASSERT_FALSE(rules.empty());
  for (const json& rule : rules) {
    EXPECT_TRUE(rule["id"].is_string());
    EXPECT_TRUE(rule["shortDescription"]["text"].is_string());
    EXPECT_TRUE(rule["defaultConfiguration"]["level"].is_string());
  }
  ASSERT_EQ(run["results"].size(), 1u);
  const json& result = run["results"][0];
  EXPECT_EQ(result["ruleId"], "cross-stream-race");
  EXPECT_EQ(rules[result["ruleIndex"].get<size_t>()]["id"], "cross-stream-race");
  EXPECT_EQ(result["level"], "error");
  EXPECT_TRUE(result["message"]["text"].is_string());
  // The headline, why and fix, in that order, as in every report.
  const json named = SarifReport(NamedData())["runs"][0]["results"][0];
  const std::string message = named["message"]["text"];
  EXPECT_EQ(message.find("aten::sum (model.py:11) reads the 4 KiB buffer"), 0u) << message;
  EXPECT_LT(message.find(" Why: the torch.cuda.Stream"), message.find(" Fix: before model.py:11")) << message;
  EXPECT_EQ(result["partialFingerprints"]["streamcheck/v1"], "fp-normal-sum");

  ASSERT_EQ(result["locations"].size(), 1u);
  ExpectValidPhysicalLocation(result["locations"][0]);
  EXPECT_EQ(result["locations"][0]["physicalLocation"]["region"]["startLine"], 11);
  EXPECT_EQ(result["locations"][0]["physicalLocation"]["region"]["startColumn"], 5);
  ASSERT_EQ(result["relatedLocations"].size(), 1u);
  ExpectValidPhysicalLocation(result["relatedLocations"][0]);
  EXPECT_EQ(result["relatedLocations"][0]["physicalLocation"]["region"]["startLine"], 7);
  EXPECT_TRUE(result["relatedLocations"][0]["id"].is_number_integer());

  ASSERT_EQ(result["codeFlows"].size(), 1u);
  const json& flows = result["codeFlows"][0]["threadFlows"];
  ASSERT_EQ(flows.size(), 2u);
  for (const json& flow : flows) {
    ASSERT_FALSE(flow["locations"].empty());
    for (const json& step : flow["locations"]) EXPECT_TRUE(step.contains("location"));
  }
  // Outermost frame first.
  EXPECT_EQ(flows[0]["locations"][0]["location"]["message"]["text"], "make_input");
}

TEST(SarifReport, FallsBackToAnotherLocationWhenTheLaterAccessHasNoSource) {
  ReportData data = Data();
  data.findings[0].finding.accesses[1].stack.clear();
  json result = SarifReport(data)["runs"][0]["results"][0];
  ASSERT_EQ(result["locations"].size(), 1u);
  EXPECT_EQ(result["locations"][0]["physicalLocation"]["region"]["startLine"], 7);
  EXPECT_FALSE(result.contains("relatedLocations"));

  data.findings[0].finding.accesses[0].stack.clear();
  result = SarifReport(data)["runs"][0]["results"][0];
  ASSERT_EQ(result["locations"].size(), 1u);
  EXPECT_EQ(result["locations"][0]["physicalLocation"]["region"]["startLine"], 3);  // allocation
}

TEST(SarifReport, AbsolutePathsBecomeFileUris) {
  EXPECT_EQ(SarifUri("/src/a.cu"), "file:///src/a.cu");
  EXPECT_EQ(SarifUri("src/a.cu"), "src/a.cu");
}

TEST(HtmlReport, IsSelfContainedWithTimelineAndStacks) {
  ReportData data = Data();
  data.findings[0].finding.message = "<script>alert(1)</script>";
  std::ostringstream out;
  WriteHtmlReport(data, out);
  std::string html = out.str();
  EXPECT_EQ(html.find("<script"), std::string::npos) << "message must be escaped";
  // The only URL is the SVG namespace name, which is never fetched.
  for (size_t at = html.find("http"); at != std::string::npos; at = html.find("http", at + 1))
    EXPECT_EQ(html.compare(at, 26, "http://www.w3.org/2000/svg"), 0) << html.substr(at, 40);
  EXPECT_EQ(html.find("src=\""), std::string::npos) << "nothing loaded from elsewhere";
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_NE(html.find("class=\"timeline\""), std::string::npos);
  EXPECT_NE(html.find("data-lane=\"stream 0x5555 (non-blocking)\""), std::string::npos);
  EXPECT_NE(html.find("data-lane=\"default stream\""), std::string::npos);
  EXPECT_NE(html.find("class=\"missing-edge\""), std::string::npos);
  EXPECT_NE(html.find("make_input"), std::string::npos);
}

TEST(HtmlReport, TheRunListCountsProcessesInWords) {
  ReportData data = Data();
  store::StoredRun run;
  run.id = 7;
  run.info.mode = "replay";
  data.runs = {run};
  data.processes[7] = {store::StoredProcess{}, store::StoredProcess{}};
  std::ostringstream two;
  WriteHtmlReport(data, two);
  EXPECT_NE(two.str().find("run 7 (replay, 2 processes)"), std::string::npos) << two.str();
  data.processes[7].pop_back();
  std::ostringstream one;
  WriteHtmlReport(data, one);
  EXPECT_NE(one.str().find("run 7 (replay, 1 process)"), std::string::npos);
}

TEST(HtmlReport, CardsNameStreamsForPeopleAndKeepTheFullNamesOneClickAway) {
  ReportData data = NamedData();
  data.findings[0].finding.accesses[1].op = "void at::native::reduce_kernel<512, 1>(at::native::ReduceOp<float>)";
  std::ostringstream out;
  WriteHtmlReport(data, out);
  const std::string html = out.str();
  EXPECT_NE(html.find("<h2 class=\"headline\">aten::sum (model.py:11) reads the 4 KiB buffer"), std::string::npos)
      << html;
  EXPECT_NE(html.find("data-lane=\"torch.cuda.Stream first used at model.py:11\""), std::string::npos);
  EXPECT_NE(html.find("data-lane=\"default stream\""), std::string::npos);
  EXPECT_NE(html.find("class=\"op sync\" data-role=\"event record\""), std::string::npos) << "the record that did happen";
  EXPECT_NE(html.find("full name: <code class=\"fullname\">void at::native::reduce_kernel&lt;512, 1&gt;"),
            std::string::npos);
  EXPECT_NE(html.find("<details class=\"side\">"), std::string::npos) << "stacks are folded";
  // The overview: by rule, by source location (linked to the card), runs.
  EXPECT_NE(html.find("<a href=\"#finding-1\">model.py:11</a>"), std::string::npos) << html;
  EXPECT_NE(html.find("run 1 (run): <code>python train.py</code>"), std::string::npos) << html;
}

TEST(HtmlReport, ShowsTheSourceLineOfEachFrameWhenTheFileIsReadable) {
  testing::ScratchDir dir;
  std::string source = dir.File("kernels.cu");
  testing::WriteAll(source, "int main() {\n  launch<<<1, 1, 0, s>>>(a);\n}\n");
  ReportData data = Data();
  data.findings[0].finding.accesses[1].stack = {{"main", source, 2, 3, 0}};
  data.source_roots = {dir.File(".")};
  std::ostringstream out;
  WriteHtmlReport(data, out);
  // The line itself, marked, with the lines around it.
  EXPECT_NE(out.str().find("<span class=\"line\"><span class=\"ln\">1</span>int main() {</span>"
                           "<span class=\"line hit\"><span class=\"ln\">2</span>  launch&lt;&lt;&lt;1, 1, 0, "
                           "s&gt;&gt;&gt;(a);</span><span class=\"line\"><span class=\"ln\">3</span>}</span>"),
            std::string::npos) << out.str();
  // Not readable (no source root): no source block at all.
  data.source_roots.clear();
  std::ostringstream unreadable;
  WriteHtmlReport(data, unreadable);
  EXPECT_EQ(unreadable.str().find("<figure class=\"source\">"), std::string::npos);
}

}  // namespace
}  // namespace streamcheck::report
