#include "tracer/host_threads/host_clock.h"

#include <fstream>
#include <string>

namespace streamcheck::tracer {
namespace {

// The kernel keeps its own time with the counter only when the counter runs
// at one rate on every CPU, through idle states and frequency changes; then
// counts taken on any CPU compare. Under a hypervisor's clock source
// (kvm-clock, hyperv_clocksource) or an unstable counter, it does not.
bool KernelTimesWithTimeStampCounter() {
#if defined(__x86_64__)
  std::ifstream in("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string source;
  return in >> source && source == "tsc";
#else
  return false;
#endif
}

}  // namespace

HostClock::HostClock() : HostClock(KernelTimesWithTimeStampCounter()) {}

HostClock::HostClock(bool time_stamp_counter) : time_stamp_counter_(time_stamp_counter) {
  start_ns_ = SteadyNanoseconds();
  start_ticks_ = Ticks();
}

uint64_t TicksToNanoseconds::operator()(uint64_t ticks) {
  if (ticks <= clock_.start_ticks_) return 0;
  const uint64_t elapsed = ticks - clock_.start_ticks_;
  if (!clock_.time_stamp_counter_) return elapsed;
  // The rate is measured over the whole time since the start, again each
  // time a count lies 1/16 beyond the last measurement: the error of the
  // two clock reads shrinks with the span, and a count extrapolated past
  // the measurement stays within a few nanoseconds of steady_clock.
  if (elapsed > calibrated_ticks_ + calibrated_ticks_ / 16) Calibrate();
  return static_cast<uint64_t>(static_cast<double>(elapsed) * ns_per_tick_);
}

double TicksToNanoseconds::NanosecondsPerTick() {
  if (!clock_.time_stamp_counter_) return 1;
  Calibrate();
  return ns_per_tick_;
}

void TicksToNanoseconds::Calibrate() {
  const uint64_t now_ns = HostClock::SteadyNanoseconds();
  const uint64_t now_ticks = clock_.Ticks();
  if (now_ticks <= clock_.start_ticks_ || now_ns <= clock_.start_ns_) return;
  calibrated_ticks_ = now_ticks - clock_.start_ticks_;
  ns_per_tick_ = static_cast<double>(now_ns - clock_.start_ns_) / static_cast<double>(calibrated_ticks_);
}

}  // namespace streamcheck::tracer
