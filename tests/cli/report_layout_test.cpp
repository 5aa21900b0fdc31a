// The HTML report of bundled traces, rendered in headless Chromium at 1280 px:
// the layout facts a reader cares about, measured in the browser (a copy of
// the page with a measuring script; the report itself has no script), and a
// screenshot of each page kept under build/artifacts/report-screenshots/ for
// people (CI keeps the folder as an artifact).
//   * each finding's headline fits in two lines;
//   * its timeline is as wide as its card, and its text renders at 11 px or more;
//   * no text runs out of its box: no element scrolls sideways, none sticks
//     out of the page's column, and the timeline's labels fit their boxes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/common/run_command.h"

namespace streamcheck {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kSource = STREAMCHECK_SOURCE_DIR;

struct LayoutCase {
  const char* name;   // the screenshot's name
  const char* trace;  // under testdata/
};

constexpr LayoutCase kCases[] = {
    {"two_streams", "examples/two_streams.trace.txt"},
    {"pytorch_normal_sum", "traces/pytorch_normal_sum.racy.sctrace"},
    {"pytorch_record_stream", "traces/pytorch_record_stream.racy.sctrace"},
    {"per_thread_default_stream", "traces/per_thread_default_stream.racy.sctrace"},
    // A host lane: the host's own read, seen through a guard page (tracer/host/).
    {"pinned_host_loop", "traces/pinned_host_loop.racy.sctrace"},
    // Two host threads and a synchronize between them: a possible race, the longest why.
    {"thread_handover", "traces/thread_handover.racy.sctrace"},
};

std::string FindChromium() {
  for (const char* candidate : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"})
    if (fs::exists(candidate)) return candidate;
  return {};
}

// Measures the page once it is laid out and leaves the facts, as JSON, in a
// <pre id="layout-facts"> that --dump-dom prints.
constexpr const char* kProbe = R"js(<script>
(function () {
  const main = document.querySelector('main').getBoundingClientRect();
  const facts = {pageWidth: document.documentElement.scrollWidth, windowWidth: window.innerWidth,
                 pageHeight: document.documentElement.scrollHeight, overflowing: [], cards: []};
  const describe = (el) => el.tagName + '.' + el.className + ' "' + (el.textContent || '').slice(0, 50) + '"';
  for (const el of document.querySelectorAll('main *')) {
    if (el.closest('svg') || el.closest('details:not([open])') && el.tagName !== 'SUMMARY' && el.tagName !== 'DETAILS')
      continue;
    if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) facts.overflowing.push('scrolls: ' + describe(el));
    const r = el.getBoundingClientRect();
    if (r.width > 0 && (r.right > main.right + 1 || r.left < main.left - 1)) facts.overflowing.push('sticks out: ' + describe(el));
  }
  for (const card of document.querySelectorAll('article.card')) {
    const h = card.querySelector('h2.headline');
    const svg = card.querySelector('svg.timeline');
    const style = getComputedStyle(card);
    const view = svg.viewBox.baseVal;
    const scale = svg.getBoundingClientRect().width / view.width;
    const labelWidth = parseFloat(svg.dataset.labelWidth);
    let minFont = 1e9;
    const svgOverflow = [];
    for (const t of svg.querySelectorAll('text')) {
      minFont = Math.min(minFont, parseFloat(getComputedStyle(t).fontSize) * scale);
      const box = t.getBBox();
      const group = t.parentNode;
      const rect = group.querySelector('rect');
      if (group.classList.contains('op') || group.classList.contains('missing-label')) {
        const r = rect.getBBox();
        if (box.x < r.x - 0.5 || box.x + box.width > r.x + r.width + 0.5) svgOverflow.push(t.textContent);
      } else if (group.classList.contains('lane') && box.x + box.width > labelWidth) {
        svgOverflow.push(t.textContent);
      }
      if (box.x < 0 || box.x + box.width > view.width) svgOverflow.push(t.textContent);
    }
    facts.cards.push({id: card.id,
                      headlineLines: Math.round(h.getBoundingClientRect().height / parseFloat(getComputedStyle(h).lineHeight)),
                      timelineWidth: svg.getBoundingClientRect().width,
                      cardContentWidth: card.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight),
                      minSvgFontPx: minFont, svgOverflow: svgOverflow});
  }
  const out = document.createElement('pre');
  out.id = 'layout-facts';
  out.textContent = JSON.stringify(facts);
  document.body.appendChild(out);
})();
</script>)js";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Unescape(std::string text) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"&lt;", "<"}, {"&gt;", ">"}, {"&nbsp;", " "},
                                 {"&amp;", "&"}}) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  }
  return text;
}

class ReportLayout : public ::testing::TestWithParam<LayoutCase> {};

TEST_P(ReportLayout, ReadsAt1280Pixels) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (scripts/test.sh installs it)";
  const LayoutCase& c = GetParam();
  const fs::path dir = fs::temp_directory_path() / ("streamcheck_layout_" + std::to_string(getpid()) + "_" + c.name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string cd = "cd '" + dir.string() + "' && ";
  const std::string binary = STREAMCHECK_BINARY;
  auto run = testing::RunCommand(cd + binary + " replay -q --db r.db '" + kSource + "/testdata/" + c.trace + "' 2>&1");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  // The sources are this checkout (traces recorded elsewhere name the files by
  // the paths they had there; the report finds them by their trailing parts).
  run = testing::RunCommand(cd + binary + " report r.db --format html -o report.html --source-root '" + kSource +
                            "' --source-root '" + kSource + "/testdata/examples' 2>&1");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::string html = ReadFile(dir / "report.html");
  ASSERT_NE(html.find("<pre class=\"code\">"), std::string::npos) << "the source lines are quoted";

  // A fresh profile per run: Chromium touches nothing of the user's.
  const std::string flags = " --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking "
                            "--disable-component-update --disable-sync --hide-scrollbars --user-data-dir='" +
                            (dir / "profile").string() + "'";
  std::string probe = html;
  probe.insert(probe.rfind("</body>"), kProbe);
  std::ofstream(dir / "probe.html") << probe;
  const auto dom = testing::RunCommand(chromium + flags + " --window-size=1280,900 --dump-dom 'file://" +
                                       (dir / "probe.html").string() + "' 2>/dev/null");
  const size_t begin = dom.output.find("<pre id=\"layout-facts\">");
  ASSERT_NE(begin, std::string::npos) << "chromium printed no facts:\n" << dom.output.substr(0, 2000);
  const size_t start = begin + std::string("<pre id=\"layout-facts\">").size();
  const json facts = json::parse(Unescape(dom.output.substr(start, dom.output.find("</pre>", start) - start)));

  EXPECT_LE(facts["pageWidth"].get<double>(), facts["windowWidth"].get<double>()) << "no sideways scrolling";
  EXPECT_TRUE(facts["overflowing"].empty()) << facts["overflowing"].dump(2);
  ASSERT_FALSE(facts["cards"].empty());
  for (const json& card : facts["cards"]) {
    const std::string id = card["id"];
    EXPECT_LE(card["headlineLines"].get<int>(), 2) << id << ": the headline takes more than two lines";
    EXPECT_GE(card["timelineWidth"].get<double>(), card["cardContentWidth"].get<double>() - 1)
        << id << ": the timeline is narrower than its card";
    EXPECT_GE(card["minSvgFontPx"].get<double>(), 11.0) << id << ": timeline text too small to read";
    EXPECT_TRUE(card["svgOverflow"].empty()) << id << ": " << card["svgOverflow"].dump();
  }

  // The picture, for people: the whole page at 1280 px.
  const fs::path shots = fs::path(STREAMCHECK_BINARY_DIR) / "artifacts" / "report-screenshots";
  fs::create_directories(shots);
  const int height = std::min(8000, static_cast<int>(facts["pageHeight"].get<double>()) + 40);
  const fs::path png = shots / (std::string(c.name) + ".png");
  fs::remove(png);
  testing::RunCommand(chromium + flags + " --window-size=1280," + std::to_string(height) + " --screenshot='" +
                      png.string() + "' 'file://" + (dir / "report.html").string() + "' 2>/dev/null");
  EXPECT_TRUE(fs::exists(png) && fs::file_size(png) > 0) << png;
  fs::copy_file(dir / "report.html", shots / (std::string(c.name) + ".html"), fs::copy_options::overwrite_existing);
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(BundledTraces, ReportLayout, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<LayoutCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace streamcheck
