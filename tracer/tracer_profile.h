// STREAMCHECK_DEBUG=profile: where the tracer's time per call goes (inside
// callbacks, of which in the engine), printed at exit. Off, it costs a branch.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>

#include "tracer/debug_flags.h"

namespace streamcheck::tracer {

class TracerProfile {
 public:
  TracerProfile() : on_(DebugFlag("profile")) {}
  // Nanoseconds on a monotonic clock when profiling, else 0.
  uint64_t Now() const {
    if (!on_) return 0;
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
  }
  void AddCallback(uint64_t start) {
    if (on_) ++callbacks_, callback_ns_ += Now() - start;
  }
  void AddEngine(uint64_t start) {
    if (on_) ++records_, engine_ns_ += Now() - start;
  }
  void Print() const {
    if (!on_ || callbacks_ == 0) return;
    std::fprintf(stderr,
                 "streamcheck[profile]: %llu callbacks under the lock, %.0f ns each inside; %llu records, %.0f ns "
                 "each in the engine\n",
                 static_cast<unsigned long long>(callbacks_), double(callback_ns_) / double(callbacks_),
                 static_cast<unsigned long long>(records_), records_ ? double(engine_ns_) / double(records_) : 0.0);
  }

 private:
  bool on_;
  uint64_t callbacks_ = 0, callback_ns_ = 0, records_ = 0, engine_ns_ = 0;
};

}  // namespace streamcheck::tracer
