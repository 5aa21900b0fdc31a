// STREAMCHECK_DEBUG=profile: where the tracer's (and a framework plugin's)
// time per call goes, by phase, printed at exit. Off, each measuring point
// costs a branch. Header-only, so the PyTorch plugin, built apart, uses it too.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "tracer/debug/debug_flags.h"

namespace streamcheck::tracer {

// Phase: an enum class whose last enumerator is kCount.
template <typename Phase>
class PhaseProfile {
 public:
  static constexpr size_t kPhases = static_cast<size_t>(Phase::kCount);
  // `title` starts the printed line; names[i] names phase i.
  PhaseProfile(const char* title, std::array<const char*, kPhases> names)
      : PhaseProfile(title, names, DebugFlag(DebugSwitch::kProfile)) {}
  PhaseProfile(const char* title, std::array<const char*, kPhases> names, bool on)
      : on_(on), title_(title), names_(names), start_ticks_(Ticks()), start_ns_(SteadyNanoseconds()) {}
  bool on() const { return on_; }
  // A count of the CPU's time-stamp counter (steady_clock's nanoseconds
  // elsewhere) when profiling, else 0. Each phase reads it twice, and a
  // record passes several phases: clock_gettime, some 25 ns a read (more
  // under a hypervisor), made the phases look that much dearer.
  uint64_t Now() const { return on_ ? Ticks() : 0; }
  // Atomic: unlocked callbacks and framework threads add from any thread.
  void Add(Phase phase, uint64_t start) {
    if (!on_) return;
    Slot& s = slots_[static_cast<size_t>(phase)];
    s.count.fetch_add(1, std::memory_order_relaxed);
    s.ticks.fetch_add(Now() - start, std::memory_order_relaxed);
  }
  // Counts become nanoseconds at the rate the counter kept since the start.
  void Print(std::FILE* out = stderr) const {
    if (!on_) return;
    const uint64_t ticks = Ticks() - start_ticks_, ns = SteadyNanoseconds() - start_ns_;
    const double ns_per_tick = ticks > 0 && ns > 0 ? double(ns) / double(ticks) : 1.0;
    std::fprintf(out, "%s", title_);
    for (size_t i = 0; i < kPhases; ++i) {
      const uint64_t n = slots_[i].count.load();
      const double phase_ns = double(slots_[i].ticks.load()) * ns_per_tick;
      if (n > 0)
        std::fprintf(out, " %s %llu x %.0f ns (%.1f ms);", names_[i], static_cast<unsigned long long>(n),
                     phase_ns / double(n), phase_ns / 1e6);
    }
    std::fprintf(out, "\n");
  }

 private:
  static uint64_t Ticks() {
#if defined(__x86_64__)
    return __rdtsc();
#else
    return SteadyNanoseconds();
#endif
  }
  static uint64_t SteadyNanoseconds() {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
  }
  // A line each: the program's threads and the analysis worker add to
  // different phases at once, and a shared line would move between their
  // cores on every Add (the cost measured would be partly the measuring).
  struct alignas(64) Slot {
    std::atomic<uint64_t> count{0}, ticks{0};
  };
  bool on_;
  const char* title_;
  std::array<const char*, kPhases> names_;
  uint64_t start_ticks_, start_ns_;
  Slot slots_[kPhases];
};

enum class ProfilePhase {
  kLockedCallback,    // a CUPTI callback that takes the tracer's lock, all of it
  kUnlockedCallback,  // a callback that only notes a pending launch
  kArguments,         // kernel argument words collected
  kStack,             // native stack captured
  kQueue,             // a record handed to the analysis worker
  kAnalysisWait,      // a host synchronization waiting for the worker to analyse it
  kResolve,           // argument words matched, allocations booked (on the worker)
  kEngine,            // the happens-before engine (on the worker)
  kTraceOutput,       // the --trace file (on the worker)
  kFrameworkBlock,    // a framework allocator's block event, lock included
  kHostThreadOrder,   // what the record's thread learnt from others, taken before it (queue included)
  kHostGuards,        // the record's host pages guarded (host_guards.h), mprotect included
  kPreciseSlotWait,   // --precise: a launch waiting for a slot the worker gives back
  kPreciseNewSlot,    // --precise: a launch's slot made (pinned and device memory)
  kPreciseLaunchEnd,  // --precise: the worker waiting for a launch's end
  kPreciseMerge,      // --precise: the worker merging a launch's logged ranges
  kCount
};

class TracerProfile : public PhaseProfile<ProfilePhase> {
 public:
  TracerProfile()
      : PhaseProfile("streamcheck[profile]:", {"locked callbacks", "unlocked callbacks", "argument words",
                                               "native stacks", "queue", "waits for analysis", "resolution", "engine",
                                               "trace output", "framework blocks", "host-thread order",
                                               "host guards",
                                               "precise slot waits", "precise new slots", "precise launch ends",
                                               "precise merges"}) {}
};

}  // namespace streamcheck::tracer
