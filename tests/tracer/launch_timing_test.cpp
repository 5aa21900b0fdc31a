#include "tracer/debug/launch_timing.h"

#include <gtest/gtest.h>

#include <thread>

namespace streamcheck::tracer {
namespace {

// Each test on a thread of its own: the last callback edges are per thread.
template <typename Body>
void OnFreshThread(Body body) {
  std::thread(body).join();
}

TEST(LaunchTiming, SplitsALaunchIntoItsSpans) {
  OnFreshThread([] {
    LaunchTiming timing;
    // Two launches: callbacks of 10 and 20 ticks around 1000 ticks of the
    // driver's, then 100 ticks of the program's before the second.
    timing.Note(true, 1000, 1010);
    timing.Note(false, 2010, 2030);
    timing.Note(true, 2130, 2140);
    timing.Note(false, 3140, 3160);
    const LaunchTiming::Means m = timing.MeanTicks();
    EXPECT_EQ(m.launches, 2u);
    EXPECT_EQ(m.gaps, 1u);
    EXPECT_DOUBLE_EQ(m.enter_callback, 10);
    EXPECT_DOUBLE_EQ(m.driver, 1000);
    EXPECT_DOUBLE_EQ(m.exit_callback, 20);
    EXPECT_DOUBLE_EQ(m.between_launches, 100);
  });
}

TEST(LaunchTiming, LeavesLongGapsBetweenLaunchesOut) {
  OnFreshThread([] {
    LaunchTiming timing;
    timing.Note(true, 1, 11);
    timing.Note(false, 111, 121);
    timing.Note(true, 121 + 5'000'000, 5'000'131);  // a synchronization between
    timing.Note(false, 5'000'231, 5'000'241);
    timing.Note(true, 5'000'291, 5'000'301);
    const LaunchTiming::Means m = timing.MeanTicks();
    EXPECT_EQ(m.gaps, 1u);
    EXPECT_DOUBLE_EQ(m.between_launches, 50);
  });
}

TEST(LaunchTiming, ThreadsKeepTheirOwnEdges) {
  LaunchTiming timing;
  // Interleaved callbacks of two threads: each thread's driver span runs
  // from its own enter callback.
  std::thread a([&] { timing.Note(true, 100, 110); });
  a.join();
  std::thread b([&] {
    timing.Note(true, 200, 210);
    timing.Note(false, 710, 720);
  });
  b.join();
  const LaunchTiming::Means m = timing.MeanTicks();
  EXPECT_EQ(m.launches, 1u);
  EXPECT_DOUBLE_EQ(m.driver, 500);
}

}  // namespace
}  // namespace streamcheck::tracer
