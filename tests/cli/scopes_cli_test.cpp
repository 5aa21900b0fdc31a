// Per-test scopes and the default-stream check through the binary (issue
// 42): a replayed trace gives each side its scope, `report --group-by test`
// heads each test's findings in every format and `--scope GLOB` keeps one
// test's, and `--forbid-default-stream[=GLOB]` on replay decides, or the
// trace's own run did.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/cli/cli_helpers.h"

namespace streamcheck {
namespace {

namespace fs = std::filesystem;

using cli_testing::StoredFindings;
using cli_testing::Streamcheck;
using cli_testing::TempPath;

std::string Example(const std::string& name) { return std::string(STREAMCHECK_SOURCE_DIR) + "/testdata/examples/" + name; }

// Replays `trace` into a fresh database.
std::string Replayed(const std::string& trace, const std::string& db_name, const std::string& options = "") {
  const std::string db = TempPath(db_name);
  fs::remove(db);
  const auto r = Streamcheck("replay -q --db " + db + " " + options + " " + trace);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return db;
}

TEST(Scopes, AReplayedTraceGivesEachSideItsTest) {
  const std::vector<Finding> fs = StoredFindings(Replayed(Example("pytest_scopes.trace.txt"), "scopes.db"));
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].accesses[0].scope, "tests/test_loader.py::test_fill");
  EXPECT_EQ(fs[0].accesses[1].scope, "tests/test_loader.py::test_prefetch");
}

// A trace and a second copy of the race outside every test: `--group-by
// test` heads each group in every format, `--scope` keeps one test's.
TEST(Scopes, ReportGroupsByTestAndFiltersByScope) {
  const std::string unscoped = TempPath("unscoped.trace.txt");
  {
    std::ifstream in(Example("pytest_scopes.trace.txt"));
    std::ofstream out(unscoped);
    for (std::string line; std::getline(in, line);)
      if (line.rfind("scope_", 0) != 0) out << line << "\n";
  }
  const std::string db = TempPath("grouped.db");
  fs::remove(db);
  ASSERT_EQ(Streamcheck("replay -q --db " + db + " " + unscoped + " " + Example("pytest_scopes.trace.txt")).exit_code,
            0);
  auto text = Streamcheck("report " + db + " --group-by test");
  EXPECT_EQ(text.exit_code, 0) << text.output;
  // The test's group first, then the findings outside every test.
  const size_t test_group = text.output.find("== test tests/test_loader.py::test_prefetch ==");
  const size_t outside = text.output.find("== outside every test ==");
  ASSERT_NE(test_group, std::string::npos) << text.output;
  ASSERT_NE(outside, std::string::npos) << text.output;
  EXPECT_LT(test_group, outside);
  EXPECT_NE(text.output.find("in tests/test_loader.py::test_fill"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("by test: 1 in outside every test, 1 in test tests/test_loader.py::test_prefetch"),
            std::string::npos)
      << text.output;
  const auto json = Streamcheck("report " + db + " --group-by test --format json");
  EXPECT_NE(json.output.find("\"group_by\": \"test\""), std::string::npos) << json.output;
  EXPECT_NE(json.output.find("\"test\": \"tests/test_loader.py::test_prefetch\""), std::string::npos) << json.output;
  EXPECT_NE(json.output.find("\"scope\": \"tests/test_loader.py::test_fill\""), std::string::npos) << json.output;
  const auto sarif = Streamcheck("report " + db + " --group-by test --format sarif");
  EXPECT_NE(sarif.output.find("\"groupBy\": \"test\""), std::string::npos) << sarif.output;
  EXPECT_NE(sarif.output.find("\"test\": \"tests/test_loader.py::test_prefetch\""), std::string::npos);
  const auto html = Streamcheck("report " + db + " --group-by test --format html");
  EXPECT_NE(html.output.find("<h2 class=\"test-group\">test tests/test_loader.py::test_prefetch</h2>"),
            std::string::npos);
  EXPECT_NE(html.output.find("<h2>By test</h2>"), std::string::npos);

  const auto one = Streamcheck("report " + db + " --format summary --scope '*::test_fill'");
  EXPECT_NE(one.output.find("1 finding "), std::string::npos) << one.output;
  EXPECT_NE(one.output.find(" in tests/test_loader.py::test_prefetch"), std::string::npos) << one.output;
  const auto none = Streamcheck("report " + db + " --format summary --scope 'tests/other.py::*'");
  EXPECT_NE(none.output.find("0 findings"), std::string::npos) << none.output;
  EXPECT_EQ(Streamcheck("report " + db + " --group-by rule").exit_code, 2);
}

TEST(DefaultStream, AReplayChecksTheTraceAsItsRunDid) {
  // The trace's run checked libmylib's work: the library's one default-stream launch.
  std::vector<Finding> fs = StoredFindings(Replayed(Example("default_stream_library.racy.trace.txt"), "racy.db"));
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].rule, "default-stream-use");
  EXPECT_EQ(fs[0].message, "scale_small(float*, int) issued to the legacy default stream by libmylib.so");
  EXPECT_TRUE(StoredFindings(Replayed(Example("default_stream_library.fixed.trace.txt"), "fixed.db")).empty());
  // Every object's work: the program's own init<<<>>> too.
  fs = StoredFindings(
      Replayed(Example("default_stream_library.fixed.trace.txt"), "everyone.db", "--forbid-default-stream"));
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].accesses[0].op, "init(float*, int)");
  fs = StoredFindings(
      Replayed(Example("default_stream_library.racy.trace.txt"), "app.db", "--forbid-default-stream='*/bin/app'"));
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].accesses[0].op, "init(float*, int)");
  // A trace whose run did not check is not checked.
  EXPECT_TRUE(StoredFindings(Replayed(Example("two_streams.trace.txt"), "two.db", "")).size() == 2u);
  const auto text = Streamcheck("report " + TempPath("racy.db"));
  EXPECT_NE(text.output.find("warning: scale_small (mylib.cu:9) was issued to the default stream by libmylib.so"),
            std::string::npos)
      << text.output;
}

}  // namespace
}  // namespace streamcheck
