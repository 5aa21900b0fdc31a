// The differential tests' verdict on one generated trace: the engine's
// findings against the reference graph (differential_generator.h).
//   1. soundness: every pair the engine reports is a real race in the reference;
//   2. completeness: every access that is the first race on some byte in the
//      reference is reported by the engine;
//   3. a race-free trace yields no finding;
//   4. an error (not held to a warning) is met in bytes both sides are
//      certain to touch, by sides not both of unknown mode.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "tests/runtime/differential_generator.h"
#include "tests/runtime/trace_builder.h"

namespace streamcheck::testing {

// Sets *racy when the reference has a race. Fails the test otherwise.
inline void CheckAgainstReference(const Generated& g, uint32_t seed, bool* racy) {
  ASSERT_LT(g.ref.size(), size_t(kMaxNodes));
  CollectingSink sink;
  Engine engine(&sink);
  for (const TraceRecord& r : g.records) engine.Process(r);
  engine.Finish();
  for (const auto& [what, count] : engine.stats().anomalies) ADD_FAILURE() << "seed " << seed << ": " << what;

  std::set<uint64_t> reported_later;
  for (const Finding& f : sink.findings) {
    if (f.rule != "cross-stream-race" && f.rule != "host-device-race") continue;
    ASSERT_EQ(f.accesses.size(), 2u);
    const uint64_t ei = f.accesses[0].trace_index, li = f.accesses[1].trace_index;
    reported_later.insert(li);
    // 1. Soundness: some pair of accesses of these two calls conflicts and is unordered.
    bool real = false, certain = false;
    for (const RefAccess& a : g.accesses) {
      if (a.trace_index != ei) continue;
      for (const RefAccess& b : g.accesses) {
        if (b.trace_index != li) continue;
        const bool overlap = a.begin < b.end && b.begin < a.end;
        if (!overlap || !(a.writes || b.writes) || (a.host && b.host) || g.ref.HappensBefore(a.node, b.node))
          continue;
        real = true;
        // 4.
        const Address from = std::max(a.begin, b.begin), to = std::min(a.certain_end, b.certain_end);
        if (from < to && !(a.unknown_mode && b.unknown_mode)) certain = true;
      }
    }
    ASSERT_TRUE(real) << "seed " << seed << ": reported a race that the reference orders: " << f.message;
    if (!f.at_most_warning) {
      ASSERT_TRUE(certain) << "seed " << seed << ": an error met only in guessed bytes or modes: " << f.message;
    }
    // Only traces whose threads have their own clocks can lack an order between threads.
    if (!g.per_thread) {
      ASSERT_EQ(f.reason.find("host thread"), std::string::npos) << "seed " << seed;
    }
  }
  // 2./3. Completeness: the first racy access on each byte is reported.
  std::map<Address, uint64_t> first_race;  // byte -> trace index of first racy access
  for (size_t j = 0; j < g.accesses.size(); ++j) {
    const RefAccess& b = g.accesses[j];
    for (size_t i = 0; i < j; ++i) {
      const RefAccess& a = g.accesses[i];
      if (a.trace_index == b.trace_index) continue;
      if (!(a.writes || b.writes) || (a.host && b.host) || g.ref.HappensBefore(a.node, b.node)) continue;
      for (Address x = std::max(a.begin, b.begin); x < std::min(a.end, b.end); ++x)
        if (!first_race.count(x) || first_race[x] > b.trace_index) first_race[x] = b.trace_index;
    }
  }
  *racy = !first_race.empty();
  if (first_race.empty()) {
    ASSERT_TRUE(reported_later.empty()) << "seed " << seed;
  }
  for (const auto& [byte, idx] : first_race)
    ASSERT_TRUE(reported_later.count(idx)) << "seed " << seed << ": missed the first race on byte 0x" << std::hex
                                           << byte << " at record " << std::dec << idx;
}

}  // namespace streamcheck::testing
