// Randomized differential test: the engine against a brute-force reference
// that builds the happens-before graph explicitly (differential_generator.h),
// on traces whose host threads are one chain in trace order and on traces
// whose threads have their own clocks and synchronize through objects
// (their releases and acquires said plainly: EagerProtocol). The tracer's
// tests run the same traces through the preloaded library's bookkeeping.
#include <gtest/gtest.h>

#include "tests/runtime/differential_check.h"

namespace streamcheck::testing {
namespace {

TEST(Differential, EngineMatchesBruteForceHappensBefore) {
  constexpr int kTraces = 3000;
  int racy_traces = 0, racy_per_thread = 0, per_thread = 0;
  for (uint32_t seed = 1; seed <= kTraces; ++seed) {
    EagerProtocol protocol;
    const Generated g = Generate(seed, &protocol);
    bool racy = false;
    CheckAgainstReference(g, seed, &racy);
    if (::testing::Test::HasFatalFailure()) return;
    racy_traces += racy;
    per_thread += g.per_thread;
    racy_per_thread += racy && g.per_thread;
  }
  // The generator must exercise both outcomes, or the test proves nothing.
  EXPECT_GT(racy_traces, kTraces / 10);
  EXPECT_LT(racy_traces, kTraces * 9 / 10);
  EXPECT_GT(racy_per_thread, per_thread / 10);
  EXPECT_LT(racy_per_thread, per_thread * 9 / 10);
}

}  // namespace
}  // namespace streamcheck::testing
