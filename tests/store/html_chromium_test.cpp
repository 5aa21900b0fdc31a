// Renders the HTML report in headless Chromium and checks the DOM it built:
// the page must work offline in a real browser, not only look right as text.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <memory>

#include "store/html_report.h"
#include "tests/store/store_fixtures.h"

namespace streamcheck::store {
namespace {

using testing::RaceFinding;
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
  StoredFinding s;
  s.id = 1;
  s.run_id = 1;
  s.severity = "error";
  s.finding = RaceFinding();
  // A record/wait pair on other lanes: drawn as an edge that exists.
  FindingAccess record = s.finding.accesses[0];
  record.role = "record";
  record.op = "cudaEventRecord";
  record.trace_index = 11;
  FindingAccess wait = s.finding.accesses[1];
  wait.role = "wait";
  wait.op = "cudaStreamWaitEvent";
  wait.stream = "stream 0x6666";
  wait.trace_index = 11;
  s.finding.accesses.push_back(record);
  s.finding.accesses.push_back(wait);
  data.findings.push_back(s);

  std::string html_path = dir.File("report.html");
  {
    std::ofstream out(html_path);
    WriteHtmlReport(data, out);
  }
  // The profile directory keeps Chromium from touching $HOME; stderr carries its noise.
  std::string dom = RunCommand(chromium + " --headless --no-sandbox --disable-gpu "
                               "--user-data-dir=" + dir.File("profile") +
                               " --dump-dom file://" + html_path + " 2>/dev/null");
  ASSERT_FALSE(dom.empty()) << "chromium printed no DOM";
  EXPECT_NE(dom.find("<svg class=\"timeline\""), std::string::npos) << dom.substr(0, 2000);
  EXPECT_NE(dom.find("data-lane=\"legacy default stream\""), std::string::npos);
  EXPECT_NE(dom.find("data-lane=\"stream 0x5555 (non-blocking)\""), std::string::npos);
  EXPECT_NE(dom.find("data-lane=\"stream 0x6666\""), std::string::npos);
  EXPECT_NE(dom.find("class=\"op racing\""), std::string::npos);
  EXPECT_NE(dom.find("class=\"sync-edge\""), std::string::npos);
  EXPECT_NE(dom.find("class=\"missing-edge\""), std::string::npos);
  EXPECT_NE(dom.find("make_input"), std::string::npos);
}

}  // namespace
}  // namespace streamcheck::store
