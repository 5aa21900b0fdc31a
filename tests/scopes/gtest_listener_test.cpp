// The GoogleTest listener (include/streamcheck/gtest_listener.h) on a suite
// with 2 racy and 3 clean tests (gtest_listener_probe.cpp): untraced its
// calls are no-ops; under `streamcheck run` every finding names its test,
// and with --streamcheck_fail exactly the racy tests fail, the one whose
// race began in the test before naming both.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "store/reader.h"
#include "store/store.h"
#include "tests/common/run_command.h"
#include "tests/common/temp_dir.h"

namespace streamcheck {
namespace {

using testing::RunCommand;

// A fresh database path in a folder removed with the test process.
std::string Database(const std::string& name) {
  static const testing::TempDir scratch;
  std::filesystem::remove(scratch / name);
  return scratch / name;
}

std::string Traced(const std::string& db) {
  return std::string(STREAMCHECK_BINARY) + " run --db " + db + " -- " + GTEST_LISTENER_PROBE + " --fake-cuda";
}

TEST(GTestListener, UntracedTheListenerDoesNothing) {
  auto r = RunCommand(std::string(GTEST_LISTENER_PROBE) + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = RunCommand(std::string(GTEST_LISTENER_PROBE) + " --streamcheck_fail 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("not running under `streamcheck run`, nothing is checked"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[  PASSED  ] 5 tests."), std::string::npos) << r.output;
}

TEST(GTestListener, WithFailingOnExactlyTheRacyTestsFail) {
  const auto r = RunCommand(Traced(Database("fail.db")) + " --streamcheck_fail 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("[  FAILED  ] 2 tests, listed below:\n[  FAILED  ] Loader.SideStreamReadsTooEarly\n"
                          "[  FAILED  ] Loader.ReusesTheBuffer\n"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("streamcheck found stream-ordering errors in Loader.ReusesTheBuffer:\n"
                          "cross-stream-race: scale_kernel"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("earlier access in Loader.LeavesWorkInFlight"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fix: "), std::string::npos) << r.output;
}

TEST(GTestListener, WithoutFailingTheTestsPassAndFindingsNameThem) {
  const std::string db = Database("pass.db");
  const auto r = RunCommand(Traced(db) + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // The run's summary says what the analysis and the tracer held.
  EXPECT_NE(r.output.find("engine memory "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("the tracer's tables "), std::string::npos) << r.output;
  std::string error;
  auto store = store::Store::Open(db, &error, {.read_only = true});
  ASSERT_TRUE(store) << error;
  std::vector<store::StoredFinding> findings;
  ASSERT_TRUE(store::ReadFindings(*store, {}, &findings, &error)) << error;
  ASSERT_EQ(findings.size(), 2u) << r.output;
  EXPECT_EQ(findings[0].finding.accesses[1].scope, "Loader.SideStreamReadsTooEarly");
  EXPECT_EQ(findings[1].finding.accesses[0].scope, "Loader.LeavesWorkInFlight");
  EXPECT_EQ(findings[1].finding.accesses[1].scope, "Loader.ReusesTheBuffer");
}

}  // namespace
}  // namespace streamcheck
