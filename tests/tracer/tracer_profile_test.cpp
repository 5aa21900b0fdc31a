// STREAMCHECK_DEBUG=profile's phases (tracer/debug/tracer_profile.h): counted
// in time-stamp counter ticks, printed in nanoseconds at the rate the counter
// kept since the profile began.
#include "tracer/debug/tracer_profile.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace streamcheck::tracer {
namespace {

enum class TwoPhases { kSleep, kNothing, kCount };

// What Print writes.
template <typename Profile>
std::string Printed(const Profile& profile) {
  char* text = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  profile.Print(out);
  std::fclose(out);
  std::string printed(text, size);
  std::free(text);
  return printed;
}

TEST(TracerProfile, APhaseIsPrintedInNanosecondsPerCount) {
  PhaseProfile<TwoPhases> profile("test:", {"sleeps", "nothing"}, /*on=*/true);
  for (int i = 0; i < 2; ++i) {
    const uint64_t start = profile.Now();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    profile.Add(TwoPhases::kSleep, start);
  }
  const std::string printed = Printed(profile);
  unsigned long long count = 0;
  double ns = 0, ms = 0;
  ASSERT_EQ(std::sscanf(printed.c_str(), "test: sleeps %llu x %lf ns (%lf ms);", &count, &ns, &ms), 3) << printed;
  EXPECT_EQ(count, 2u);
  EXPECT_GE(ns, 19e6) << printed;   // 20 ms each, at least
  EXPECT_LT(ns, 200e6) << printed;  // a loaded machine's sleep, at most
  EXPECT_NEAR(ms, 2 * ns / 1e6, 0.2);
  EXPECT_EQ(printed.find("nothing"), std::string::npos);  // a phase never added is not printed
}

TEST(TracerProfile, OffItCountsNothingAndPrintsNothing) {
  PhaseProfile<TwoPhases> profile("test:", {"sleeps", "nothing"}, /*on=*/false);
  EXPECT_EQ(profile.Now(), 0u);
  profile.Add(TwoPhases::kSleep, profile.Now());
  EXPECT_EQ(Printed(profile), "");
}

}  // namespace
}  // namespace streamcheck::tracer
