// STREAMCHECK_DEBUG=launch-timing: where a kernel launch's time goes, read
// with the time-stamp counter at the edges of its two callbacks. A launch's
// added cost is either the tracer's own work inside the callbacks, or its
// effect on everything else (the driver's launch work between the two
// callbacks and the program's work between launches run slower once the
// tracer's code and data have displaced theirs from the caches and the TLB).
// Comparing these spans under callbacks-only and under full tracing tells
// the two apart, where the GPU machines have no profiler.
#pragma once

#include <atomic>
#include <cstdint>

#include "tracer/host_threads/host_clock.h"

namespace streamcheck::tracer {

class LaunchTiming {
 public:
  // The time-stamp counter (steady_clock nanoseconds off x86).
  uint64_t Now() const { return clock_.Ticks(); }
  // One callback of a driver kernel launch on this thread, from `begin` to
  // `end` (Now()).
  void Note(bool enter, uint64_t begin, uint64_t end);

  // Mean ticks of each span: per launch, and between launches per gap
  // counted (a gap of 100k ticks or more, which holds a synchronization,
  // another call or a preemption, is left out).
  struct Means {
    uint64_t launches = 0, gaps = 0;
    double enter_callback = 0, driver = 0, exit_callback = 0, between_launches = 0;
  };
  Means MeanTicks() const;
  // The means in nanoseconds, to stderr.
  void Print() const;

 private:
  enum Span { kEnterCallback, kDriver, kExitCallback, kBetweenLaunches, kSpans };
  std::atomic<uint64_t> ticks_[kSpans] = {};
  std::atomic<uint64_t> launches_{0};
  std::atomic<uint64_t> between_counted_{0};
  const HostClock clock_{true};
};

}  // namespace streamcheck::tracer
