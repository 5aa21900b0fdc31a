#include "tracer/debug/launch_timing.h"

#include <cstdio>


namespace streamcheck::tracer {
namespace {

// This thread's last callback edges: a span runs from one to the next. Only
// with the debug switch on, so the thread_local's cost does not matter. (One
// LaunchTiming a process: a second one on the same thread would share them.)
struct LastEdges {
  uint64_t enter_end = 0;
  uint64_t exit_end = 0;
};
thread_local LastEdges t_last;

constexpr uint64_t kLongGapTicks = 100000;  // some 30-50 us of the time-stamp counter

}  // namespace

void LaunchTiming::Note(bool enter, uint64_t begin, uint64_t end) {
  auto add = [&](Span s, uint64_t ticks) { ticks_[s].fetch_add(ticks, std::memory_order_relaxed); };
  if (enter) {
    add(kEnterCallback, end - begin);
    // Left out: gaps of a synchronization, another call or a preemption.
    if (t_last.exit_end != 0 && begin - t_last.exit_end < kLongGapTicks) {
      add(kBetweenLaunches, begin - t_last.exit_end);
      between_counted_.fetch_add(1, std::memory_order_relaxed);
    }
    t_last.enter_end = end;
    return;
  }
  add(kExitCallback, end - begin);
  if (t_last.enter_end != 0) add(kDriver, begin - t_last.enter_end);
  launches_.fetch_add(1, std::memory_order_relaxed);
  t_last.exit_end = end;
}

LaunchTiming::Means LaunchTiming::MeanTicks() const {
  Means m;
  m.launches = launches_.load();
  m.gaps = between_counted_.load();
  auto mean = [&](Span s, uint64_t count) {
    return count ? static_cast<double>(ticks_[s].load()) / static_cast<double>(count) : 0.0;
  };
  m.enter_callback = mean(kEnterCallback, m.launches);
  m.driver = mean(kDriver, m.launches);
  m.exit_callback = mean(kExitCallback, m.launches);
  m.between_launches = mean(kBetweenLaunches, m.gaps);
  return m;
}

void LaunchTiming::Print() const {
  const Means m = MeanTicks();
  const double ns_per_tick = TicksToNanoseconds(clock_).NanosecondsPerTick();
  if (m.launches == 0 || ns_per_tick == 0) return;
  std::fprintf(stderr,
               "streamcheck[launch-timing]: %llu launches, ns each: enter callback %.1f, driver %.1f, "
               "exit callback %.1f, between launches %.1f (%llu gaps under 100k ticks)\n",
               static_cast<unsigned long long>(m.launches), m.enter_callback * ns_per_tick, m.driver * ns_per_tick,
               m.exit_callback * ns_per_tick, m.between_launches * ns_per_tick,
               static_cast<unsigned long long>(m.gaps));
}

}  // namespace streamcheck::tracer
