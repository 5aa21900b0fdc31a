// Renders the HTML report in headless Chromium and checks the DOM it built:
// the page must work offline in a real browser, not only look right as text.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <memory>

#include "report/html_report.h"
#include "tests/store/store_fixtures.h"

namespace streamcheck::report {
namespace {

using testing::ScratchDir;

std::string FindChromium() {
  for (const char* candidate : {"/usr/bin/chromium", "/usr/bin/chromium-browser",
                                "/usr/bin/google-chrome", "/usr/bin/headless_shell"})
    if (std::filesystem::exists(candidate)) return candidate;
  return {};
}

std::string RunCommand(const std::string& command) {
  std::string output;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return output;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe.get())) output.append(buffer, n);
  return output;
}

TEST(HtmlInChromium, DomContainsTheTimeline) {
  std::string chromium = FindChromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (apt-get install chromium)";
  ScratchDir dir;
  ReportData data;
  data.db_path = "findings.db";
  store::StoredFinding s;
  s.id = 1;
  s.run_id = 1;
  s.severity = "error";
  s.finding = testing::NamedRaceFinding();
  // The record the fixture has, and a wait on its event on a third stream:
  // drawn as an edge that exists.
  FindingAccess wait = s.finding.syncs[0];
  wait.role = "stream wait";
  wait.op = wait.api = "cudaStreamWaitEvent";
  wait.stream_kind = "created";
  wait.stream_handle = 0x6666;
  wait.stream_origin.ordinal = 2;
  wait.trace_index = 11;
  s.finding.syncs.push_back(wait);
  data.findings.push_back(s);

  std::string html_path = dir.File("report.html");
  {
    std::ofstream out(html_path);
    WriteHtmlReport(data, out);
  }
  // The profile directory keeps Chromium from touching $HOME; stderr carries its noise.
  std::string dom = RunCommand(chromium + " --headless --no-sandbox --disable-gpu --no-first-run "
                               "--disable-background-networking --disable-component-update --disable-sync "
                               "--user-data-dir=" + dir.File("profile") +
                               " --dump-dom file://" + html_path + " 2>/dev/null");
  ASSERT_FALSE(dom.empty()) << "chromium printed no DOM";
  EXPECT_NE(dom.find("<svg class=\"timeline\""), std::string::npos) << dom.substr(0, 2000);
  EXPECT_NE(dom.find("data-lane=\"default stream\""), std::string::npos);
  EXPECT_NE(dom.find("data-lane=\"torch.cuda.Stream first used at model.py:11\""), std::string::npos);
  EXPECT_NE(dom.find("data-lane=\"stream 2\""), std::string::npos);
  EXPECT_NE(dom.find("class=\"op racing\""), std::string::npos);
  EXPECT_NE(dom.find("class=\"op sync\""), std::string::npos);
  EXPECT_NE(dom.find("class=\"sync-edge\""), std::string::npos);
  EXPECT_NE(dom.find("class=\"missing-edge\""), std::string::npos);
  EXPECT_NE(dom.find("make_input"), std::string::npos);
}

}  // namespace
}  // namespace streamcheck::report
