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

#include "tracer/debug/debug_flags.h"

namespace streamcheck::tracer {

// Phase: an enum class whose last enumerator is kCount.
template <typename Phase>
class PhaseProfile {
 public:
  static constexpr size_t kPhases = static_cast<size_t>(Phase::kCount);
  // `title` starts the printed line; names[i] names phase i.
  PhaseProfile(const char* title, std::array<const char*, kPhases> names)
      : on_(DebugFlag(DebugSwitch::kProfile)), title_(title), names_(names) {}
  bool on() const { return on_; }
  // Nanoseconds on a monotonic clock when profiling, else 0.
  uint64_t Now() const {
    if (!on_) return 0;
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
  }
  // Atomic: unlocked callbacks and framework threads add from any thread.
  void Add(Phase phase, uint64_t start) {
    if (!on_) return;
    Slot& s = slots_[static_cast<size_t>(phase)];
    s.count.fetch_add(1, std::memory_order_relaxed);
    s.ns.fetch_add(Now() - start, std::memory_order_relaxed);
  }
  void Print() const {
    if (!on_) return;
    std::fprintf(stderr, "%s", title_);
    for (size_t i = 0; i < kPhases; ++i) {
      const uint64_t n = slots_[i].count.load(), ns = slots_[i].ns.load();
      if (n > 0)
        std::fprintf(stderr, " %s %llu x %.0f ns (%.1f ms);", names_[i], static_cast<unsigned long long>(n),
                     double(ns) / double(n), double(ns) / 1e6);
    }
    std::fprintf(stderr, "\n");
  }

 private:
  // A line each: the program's threads and the analysis worker add to
  // different phases at once, and a shared line would move between their
  // cores on every Add (the cost measured would be partly the measuring).
  struct alignas(64) Slot {
    std::atomic<uint64_t> count{0}, ns{0};
  };
  bool on_;
  const char* title_;
  std::array<const char*, kPhases> names_;
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
