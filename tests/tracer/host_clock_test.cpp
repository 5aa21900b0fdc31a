#include "tracer/host_threads/host_clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace streamcheck::tracer {
namespace {

using std::chrono::steady_clock;

int64_t NanosecondsSince(steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(steady_clock::now() - t).count();
}

// Counts taken on the program's side, converted later (as the worker does,
// after the fact): each must land where steady_clock was when it was taken.
void ExpectCountsFollowSteadyClock(bool time_stamp_counter) {
  const steady_clock::time_point before = steady_clock::now();
  const HostClock clock(time_stamp_counter);
  const int64_t start_ns = NanosecondsSince(before);
  TicksToNanoseconds to_ns(clock);
  uint64_t counts[4];
  int64_t steady_ns[4];
  for (int i = 0; i < 4; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + 5 * i));
    counts[i] = clock.Ticks();
    steady_ns[i] = NanosecondsSince(before) - start_ns;
  }
  constexpr int64_t kTolerance = 200'000;  // 0.2 ms: two clock reads apart, on a loaded machine
  uint64_t previous = 0;
  for (int i = 0; i < 4; ++i) {
    const uint64_t ns = to_ns(counts[i]);
    EXPECT_NEAR(static_cast<double>(ns), static_cast<double>(steady_ns[i]), kTolerance) << "count " << i;
    EXPECT_GT(ns, previous);
    previous = ns;
  }
  EXPECT_EQ(to_ns(0), 0u);  // before the start: the start
}

TEST(HostClock, SteadyClockCountsAreNanosecondsSinceTheStart) { ExpectCountsFollowSteadyClock(false); }

#if defined(__x86_64__)
TEST(HostClock, TimeStampCounterCountsConvertToSteadyClockTime) { ExpectCountsFollowSteadyClock(true); }

// A count converted long after it was taken (the worker behind by a batch)
// and counts converted out of order still land where they were taken.
TEST(HostClock, LateAndOutOfOrderConversionsAgree) {
  const HostClock clock(true);
  TicksToNanoseconds to_ns(clock);
  const steady_clock::time_point early_time = steady_clock::now();
  const uint64_t early = clock.Ticks();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const uint64_t late = clock.Ticks();
  const int64_t apart_ns = NanosecondsSince(early_time);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const uint64_t late_ns = to_ns(late), early_ns = to_ns(early);
  EXPECT_NEAR(static_cast<double>(late_ns - early_ns), static_cast<double>(apart_ns), 200'000);
}

// A span of ticks times the rate is the span in nanoseconds.
TEST(HostClock, TickRateTurnsASpanIntoNanoseconds) {
  const HostClock clock(true);
  const steady_clock::time_point begin_time = steady_clock::now();
  const uint64_t begin = clock.Ticks();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const uint64_t end = clock.Ticks();
  const int64_t span_ns = NanosecondsSince(begin_time);
  const double ns_per_tick = TicksToNanoseconds(clock).NanosecondsPerTick();
  EXPECT_NEAR(static_cast<double>(end - begin) * ns_per_tick, static_cast<double>(span_ns), 200'000);
}
#endif

TEST(HostClock, SteadyClockTicksAreNanoseconds) {
  const HostClock clock(false);
  EXPECT_EQ(TicksToNanoseconds(clock).NanosecondsPerTick(), 1.0);
}

}  // namespace
}  // namespace streamcheck::tracer
