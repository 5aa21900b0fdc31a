// Golden files: the text, JSON and SARIF reports of bundled traces (C++ and
// PyTorch, recorded on a GPU and hand-written), compared byte for byte with
// testdata/golden/. A change to any report shows here as a diff to review.
//
// To accept a deliberate change: scripts/update-golden.sh (it rewrites the
// files and shows what changed; read the diff before committing it).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/common/run_command.h"

namespace streamcheck {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct GoldenCase {
  const char* name;   // testdata/golden/<name>.{txt,json,sarif}
  const char* trace;  // under testdata/
};

constexpr GoldenCase kCases[] = {
    {"two_streams", "examples/two_streams.trace.txt"},
    {"event_record_wait", "traces/event_record_wait.racy.sctrace"},
    {"pytorch_normal_sum", "traces/pytorch_normal_sum.racy.sctrace"},
    {"pytorch_record_stream", "traces/pytorch_record_stream.racy.sctrace"},
    // The host's own read through a guard page (a host lane), and a race that only
    // an unobserved handover between host threads could order (possible).
    {"pinned_host_loop", "traces/pinned_host_loop.racy.sctrace"},
    {"thread_handover", "traces/thread_handover.racy.sctrace"},
};

const std::string kSource = STREAMCHECK_SOURCE_DIR;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteFile(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// The text report is all recorded data: source paths are those of the machine
// that recorded the trace, and stay as they are wherever this checkout lives.
std::string NormalizeText(const std::string& text) { return text; }

// What changes from machine to machine and version to version, made fixed. The
// run's command names the trace by this checkout's path.

std::string NormalizeJson(const std::string& text) {
  json report = json::parse(text);
  report["tool_version"] = "<version>";
  for (json& run : report["runs"]) {
    run["host"] = "<host>";
    run["tool_version"] = "<version>";
    run["start_time_ns"] = 0;
    run["end_time_ns"] = 0;
    run["command"] = Replace(run["command"].get<std::string>(), kSource, "<src>");
  }
  return report.dump(2) + "\n";
}

std::string NormalizeSarif(const std::string& text) {
  json sarif = json::parse(text);
  json& driver = sarif["runs"][0]["tool"]["driver"];
  driver["version"] = driver["semanticVersion"] = "<version>";
  // The rule catalogue has tests of its own; the ids are what results refer to.
  json ids = json::array();
  for (const json& rule : driver["rules"]) ids.push_back(rule["id"]);
  driver["rules"] = ids;
  return sarif.dump(2) + "\n";
}

// `diff -u`, readable in a test log.
std::string Diff(const fs::path& expected, const fs::path& actual) {
  return testing::RunCommand("diff -u '" + expected.string() + "' '" + actual.string() + "' 2>&1").output;
}

class GoldenReports : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenReports, MatchTheCheckedInFiles) {
  const GoldenCase& c = GetParam();
  const fs::path scratch = fs::temp_directory_path() / ("streamcheck_golden_" + std::to_string(getpid()) + "_" + c.name);
  fs::remove_all(scratch);
  fs::create_directories(scratch);
  const std::string cd = "cd '" + scratch.string() + "' && ";
  const std::string binary = STREAMCHECK_BINARY;
  const auto replay = testing::RunCommand(cd + binary + " replay -q --db golden.db '" + kSource + "/testdata/" +
                                          c.trace + "' 2>&1");
  ASSERT_EQ(replay.exit_code, 0) << replay.output;

  const bool update = std::getenv("STREAMCHECK_UPDATE_GOLDEN") != nullptr;
  const fs::path golden_dir = fs::path(kSource) / "testdata" / "golden";
  const fs::path actual_dir = fs::path(STREAMCHECK_BINARY_DIR) / "golden-actual";
  const std::pair<const char*, std::string (*)(const std::string&)> formats[] = {
      {"text", NormalizeText}, {"json", NormalizeJson}, {"sarif", NormalizeSarif}};
  for (const auto& [format, normalize] : formats) {
    const auto report =
        testing::RunCommand(cd + binary + " report golden.db --color=never --format " + format + " 2>&1");
    ASSERT_EQ(report.exit_code, 0) << report.output;
    const std::string actual = normalize(report.output);
    const std::string file = std::string(c.name) + "." + (std::string(format) == "text" ? "txt" : format);
    const fs::path golden = golden_dir / file;
    if (update) {
      WriteFile(golden, actual);
      continue;
    }
    const std::string expected = ReadFile(golden);
    if (actual == expected) continue;
    WriteFile(actual_dir / file, actual);
    ADD_FAILURE() << file << " differs from testdata/golden/" << file << " (- expected, + actual):\n"
                  << Diff(golden, actual_dir / file)
                  << "\nIf the change is deliberate, run scripts/update-golden.sh and review `git diff "
                     "testdata/golden` before committing it.";
  }
  fs::remove_all(scratch);
}

INSTANTIATE_TEST_SUITE_P(BundledTraces, GoldenReports, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace streamcheck
