// `streamcheck doctor`, `plugin build` and `run --precise` where the
// installation or the machine lacks something: a line with the reason and
// the fix, the exit status --need asks for, never a crash. On this machine
// (CI): no GPU driver, no PyTorch.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/common/run_command.h"

namespace streamcheck {
namespace {

using Result = testing::CommandResult;

Result Streamcheck(const std::string& args) {
  return testing::RunCommand(std::string(STREAMCHECK_BINARY) + " " + args + " 2>&1");
}

nlohmann::json DoctorJson(const std::string& args = "") {
  const Result r = testing::RunCommand(std::string(STREAMCHECK_BINARY) + " doctor --json " + args + " 2>/dev/null");
  return nlohmann::json::parse(r.output, nullptr, false);
}

bool Has(const nlohmann::json& doctor, const std::string& name) {
  for (const auto& c : doctor["capabilities"])
    if (c["name"] == name) return c["ok"].get<bool>();
  return false;
}

TEST(Doctor, OneLinePerCapabilityWithTheReasonAndTheFixWhereMissing) {
  const Result r = Streamcheck("doctor --need all");
  for (const char* name : {"driver", "tracer", "cupti", "preload", "guards", "precise", "pytorch", "lint"})
    EXPECT_NE(r.output.find(std::string("\n  ") + name), std::string::npos) << name << "\n" << r.output;
  size_t missing = 0;
  for (size_t at = 0; (at = r.output.find("missing: ", at)) != std::string::npos; ++at) {
    ++missing;
    const size_t end = r.output.find('\n', at);
    EXPECT_NE(r.output.substr(at, end - at).find(". Fix: "), std::string::npos) << r.output.substr(at, end - at);
  }
  EXPECT_EQ(r.exit_code, missing > 0 ? 1 : 0) << r.output;
}

TEST(Doctor, ExitsZeroWhenWhatIsNeededIsThere) {
  const nlohmann::json doctor = DoctorJson();
  ASSERT_TRUE(doctor.is_object());
  ASSERT_EQ(doctor["capabilities"].size(), 8u);
  // The default is the core: run's driver, tracer, CUPTI, preload.
  const bool core = Has(doctor, "driver") && Has(doctor, "tracer") && Has(doctor, "cupti") && Has(doctor, "preload");
  EXPECT_EQ(Streamcheck("doctor").exit_code, core ? 0 : 1);
  EXPECT_EQ(doctor["missing_needed"].empty(), core);
  if (Has(doctor, "lint")) EXPECT_EQ(Streamcheck("doctor --need lint").exit_code, 0);
  const Result bad = Streamcheck("doctor --need lint,gpus");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("no capability is named 'gpus'"), std::string::npos) << bad.output;
}

TEST(Doctor, AMachineWithoutADriverSaysSo) {
  const nlohmann::json doctor = DoctorJson();
  if (Has(doctor, "driver")) GTEST_SKIP() << "this machine has an NVIDIA driver";
  const Result r = Streamcheck("doctor");
  EXPECT_NE(r.output.find("driver   missing: no NVIDIA driver (libcuda.so.1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("missing for --need run: driver"), std::string::npos) << r.output;
}

TEST(Doctor, APythonWithoutPyTorchIsNamed) {
  const Result r = Streamcheck("doctor --need pytorch --python /bin/false");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("pytorch  missing: cannot run /bin/false"), std::string::npos) << r.output;
  const Result none = Streamcheck("plugin build --python /no/such/python");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.output.find("cannot run /no/such/python"), std::string::npos) << none.output;
  EXPECT_NE(none.output.find("--python PATH"), std::string::npos) << none.output;
}

TEST(RunPrecise, RefusesToStartWhereThePreciseFrontEndIsNot) {
  if (Has(DoctorJson(), "precise")) GTEST_SKIP() << "this installation has the precise front-end";
  const Result r = Streamcheck("run --db /dev/null/none.db --precise -- true");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--precise is not available: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Nothing was run"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace streamcheck
