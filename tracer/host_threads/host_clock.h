// The host time of each record. A record is stamped on the program's thread,
// inside the CUDA call, where steady_clock (clock_gettime through the vDSO:
// a fenced counter read, a sequence lock and a conversion) costs some 25 ns
// a record, more under a hypervisor's clock source. Where the kernel itself
// keeps time with the CPU's time-stamp counter, the program's thread reads
// only that counter (some 10 ns), and the analysis worker turns counts into
// nanoseconds since the tracer started, calibrating the counter's rate
// against steady_clock as it goes. Elsewhere both sides use steady_clock.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace streamcheck::tracer {

// Read on any thread, written at construction only.
class HostClock {
 public:
  HostClock();
  // Tests: whether to count with the time-stamp counter, decided by the caller.
  explicit HostClock(bool time_stamp_counter);
  // The current count: time-stamp counter ticks, or steady_clock nanoseconds.
  uint64_t Ticks() const {
#if defined(__x86_64__)
    if (time_stamp_counter_) return __rdtsc();
#endif
    return SteadyNanoseconds();
  }
  static uint64_t SteadyNanoseconds() {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
  }

 private:
  friend class TicksToNanoseconds;
  bool time_stamp_counter_;
  uint64_t start_ticks_;
  uint64_t start_ns_;  // steady_clock's, when start_ticks_ was read
};

// Counts of one HostClock as nanoseconds since its start. One thread at a
// time (the analysis worker, or a thread analysing inline under the
// tracer's lock); it writes its calibration, so it lives on that side.
class TicksToNanoseconds {
 public:
  explicit TicksToNanoseconds(const HostClock& clock) : clock_(clock) {}
  // For a count taken now or before (a record not analysed yet).
  uint64_t operator()(uint64_t ticks);
  // How long a tick lasts, measured over the whole time since the clock's
  // start (1 for steady_clock's nanoseconds; 0 before any tick has passed).
  double NanosecondsPerTick();

 private:
  void Calibrate();
  const HostClock& clock_;
  double ns_per_tick_ = 0;
  uint64_t calibrated_ticks_ = 0;  // ticks since the start at the last calibration
};

}  // namespace streamcheck::tracer
