// The shapes of the text, JSON, SARIF and HTML reports.
#include <gtest/gtest.h>

#include <sstream>

#include "store/html_report.h"
#include "store/json_report.h"
#include "store/sarif_report.h"
#include "store/text_report.h"
#include "tests/store/store_fixtures.h"

namespace streamcheck::store {
namespace {

using nlohmann::json;
using testing::RaceFinding;

ReportData Data() {
  ReportData data;
  data.db_path = "findings.db";
  StoredRun run;
  run.id = 1;
  run.info.mode = "run";
  run.info.command = "python train.py";
  data.runs.push_back(run);
  StoredFinding s;
  s.id = 1;
  s.run_id = 1;
  s.severity = "error";
  s.finding = RaceFinding();
  data.findings.push_back(s);
  return data;
}

TEST(TextReport, ReadsLikeACompilerDiagnostic) {
  std::ostringstream out;
  WriteTextReport(Data(), out);
  std::string text = out.str();
  EXPECT_NE(text.find("model.py:11:5: error: kernel `sum_kernel`"), std::string::npos) << text;
  EXPECT_NE(text.find("[cross-stream-race]"), std::string::npos);
  EXPECT_NE(text.find("model.py:7: note: earlier access: write by normal_kernel (aten::normal_)"),
            std::string::npos) << text;
  EXPECT_NE(text.find("#1 make_input model.py:7"), std::string::npos) << text;
  EXPECT_NE(text.find("why: s was created non-blocking"), std::string::npos);
  EXPECT_NE(text.find("fix: s.wait_stream"), std::string::npos);
  EXPECT_NE(text.find("1 finding (1 error"), std::string::npos) << text;
}

// One line per finding: where, rule, kind, the framework ops (not the long
// kernel names) in order, how often; then the counts by rule and the totals.
TEST(SummaryReport, OneLinePerFindingThenCountsByRule) {
  ReportData data = Data();
  data.findings.push_back(data.findings.front());
  data.findings.back().finding.count = 3;
  std::ostringstream out;
  WriteSummaryReport(data, out);
  const std::string expected_line =
      "model.py:11:5: error: cross-stream-race (read-after-write): aten::normal_ vs aten::sum";
  EXPECT_EQ(out.str(), expected_line + "\n" + expected_line + " (seen 3 times)\n" +
                           "by rule: 2 cross-stream-race\n2 findings (2 errors, 0 other) in 1 run of findings.db\n");
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
  EXPECT_NE(html.find("data-lane=\"legacy default stream\""), std::string::npos);
  EXPECT_NE(html.find("class=\"missing-edge\""), std::string::npos);
  EXPECT_NE(html.find("make_input"), std::string::npos);
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
  EXPECT_NE(out.str().find("class=\"source\">  launch&lt;&lt;&lt;1, 1, 0, s&gt;&gt;&gt;(a);"),
            std::string::npos) << out.str();
}

}  // namespace
}  // namespace streamcheck::store
