// run --forbid-default-stream[=GLOB] (rule default-stream-use): work issued
// to the legacy or per-thread default stream, one finding per call site, and
// with a pattern only the matching objects' work.
#include <gtest/gtest.h>

#include "tests/runtime/finding_matchers.h"
#include "tests/runtime/trace_builder.h"

namespace streamcheck::testing {
namespace {

constexpr Handle kLegacy = 0, kLegacyHandle = 1, kPerThread = 2, kS1 = 0x10, kBuf = 0x1000, kPinned = 0x90000;
constexpr uint64_t kBytes = 4096;

EngineOptions Forbid(const std::string& objects = "") {
  EngineOptions o;
  o.forbid_default_stream = true;
  o.default_stream_objects = objects;
  return o;
}

// Work on every kind of stream, and calls on default streams that are no work of their own.
TraceBuilder Mixed() {
  TraceBuilder t;
  t.StreamCreate(kS1).EventCreate(0xe1);
  t.Malloc(kBuf, kBytes).Malloc(kPinned, kBytes, MemoryKind::kPinnedHost);
  t.Kernel(kLegacy, "on_zero", {W(kBuf, 16)});                                       // reported
  t.Copy(kPerThread, kBuf, kPinned, kBytes, CopyKind::kHostToDevice, true);          // reported
  t.Memset(kLegacyHandle, kBuf, kBytes, true);                                       // reported
  t.HostFunc(kLegacy);                                                               // reported
  t.Kernel(kS1, "on_own_stream", {W(kBuf, 16)});                                     // its own stream
  t.Copy(kLegacy, kPinned, kBuf, kBytes, CopyKind::kDeviceToHost, false);            // synchronous
  t.Memset(kLegacy, kBuf, kBytes, false);                                            // synchronous
  t.Record(0xe1, kLegacy).StreamSync(kLegacy);                                       // no work
  return t;
}

TEST(DefaultStreamUse, OffUnlessAskedFor) { EXPECT_TRUE(Mixed().Run().empty()); }

TEST(DefaultStreamUse, EveryWorkOnADefaultStreamIsAWarning) {
  const auto fs = Mixed().Run(nullptr, Forbid());
  ASSERT_EQ(fs.size(), 4u) << Summary(fs);
  for (const Finding& f : fs) {
    EXPECT_EQ(f.rule, "default-stream-use");
    EXPECT_EQ(f.kind, FindingKind::kDefaultStreamUse);
    EXPECT_EQ(SeverityOf(f), "warning");
    ASSERT_EQ(f.accesses.size(), 1u);
  }
  EXPECT_EQ(fs[0].message, "on_zero issued to the legacy default stream");
  EXPECT_EQ(fs[0].accesses[0].stream_kind, "legacy");
  EXPECT_EQ(fs[1].message, "cudaMemcpyAsync issued to the per-thread default stream");
  EXPECT_EQ(fs[1].accesses[0].stream_kind, "per-thread");
  EXPECT_EQ(fs[2].accesses[0].api, "cudaMemsetAsync");
  EXPECT_EQ(fs[3].accesses[0].api, "cudaLaunchHostFunc");
}

TEST(DefaultStreamUse, OneFindingPerCallSiteCountedEachTime) {
  TraceBuilder t;
  for (int i = 0; i < 3; ++i) t.Kernel(kLegacy, "step", {}).AtStack(7);
  t.Kernel(kLegacy, "step", {}).AtStack(8);
  const auto fs = t.Run(nullptr, Forbid());
  ASSERT_EQ(fs.size(), 2u) << Summary(fs);
  EXPECT_EQ(fs[0].count, 3u);
  EXPECT_EQ(fs[1].count, 1u);
}

// The library under test alone: its calls match the pattern by the path of
// the object whose code made them; the program's own do not, and a call with
// no native stack cannot be matched (an anomaly, not a finding).
TEST(DefaultStreamUse, APatternSelectsTheObjectsThatIssuedTheWork) {
  TraceBuilder t;
  t.Kernel(kLegacy, "scale_small", {}).CalledFromObject("/opt/app/lib/libmylib.so.1");
  t.Kernel(kLegacy, "init", {}).CalledFromObject("/opt/app/bin/app");
  t.Kernel(kLegacy, "python_op", {}).AtStack(0);
  EngineStats stats;
  const auto fs = t.Run(&stats, Forbid("*libmylib*"));
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].message, "scale_small issued to the legacy default stream by libmylib.so.1");
  EXPECT_EQ(fs[0].accesses[0].stack[0].function, "caller");
  EXPECT_EQ(stats.anomalies.size(), 1u);
  EXPECT_EQ(stats.anomalies.begin()->second, 1u);
  EXPECT_EQ(t.Run(nullptr, Forbid("*/bin/app")).size(), 1u);
  EXPECT_EQ(t.Run(nullptr, Forbid()).size(), 3u);
}

// A library's own work (a call made from cuBLAS's code) is still reported:
// the pattern, not the library list, says whose work counts.
TEST(DefaultStreamUse, ALibrarysCallIsReportedWhenItMatches) {
  TraceBuilder t;
  t.Kernel(kLegacy, "gemm", {}).CalledFrom("cublas");
  EXPECT_EQ(t.Run(nullptr, Forbid()).size(), 1u);
}

TEST(DefaultStreamUse, CapturedWorkIsCheckedAtItsGraphsLaunch) {
  TraceBuilder t;
  t.StreamCreate(kS1).BeginCapture(kS1).Kernel(kS1, "node", {}).EndCapture(kS1, 0x9);
  t.Instantiate(0x99, 0x9).Launch(0x99, kLegacy);
  const auto fs = t.Run(nullptr, Forbid());
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].accesses[0].api, "cudaGraphLaunch");
}

TEST(DefaultStreamUse, AFindingNamesItsScope) {
  TraceBuilder t;
  t.ScopeBegin("tests/test_lib.py::test_small_batch").Kernel(kLegacy, "scale_small", {}).ScopeEnd();
  const auto fs = t.Run(nullptr, Forbid());
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].accesses[0].scope, "tests/test_lib.py::test_small_batch");
}

}  // namespace
}  // namespace streamcheck::testing
