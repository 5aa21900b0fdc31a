// STREAMCHECK_DEBUG=profile: where the tracer's time per call goes, by phase,
// printed at exit. Off, each measuring point costs a branch.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>

#include "tracer/debug_flags.h"

namespace streamcheck::tracer {

enum class ProfilePhase {
  kLockedCallback,    // a CUPTI callback that takes the tracer's lock, all of it
  kUnlockedCallback,  // a callback that only notes a pending launch
  kArguments,         // kernel arguments matched against the allocations
  kStack,             // native stack captured
  kEngine,            // the happens-before engine
  kTraceOutput,       // the --trace file
  kFrameworkBlock,    // a framework allocator's block event, lock included
  kCount
};

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
  // Atomic: unlocked callbacks add from any thread.
  void Add(ProfilePhase phase, uint64_t start) {
    if (!on_) return;
    Slot& s = slots_[static_cast<int>(phase)];
    s.count.fetch_add(1, std::memory_order_relaxed);
    s.ns.fetch_add(Now() - start, std::memory_order_relaxed);
  }
  void Print() const {
    if (!on_) return;
    static constexpr const char* kNames[] = {"locked callbacks", "unlocked callbacks", "argument matching",
                                             "native stacks",    "engine",             "trace output",
                                             "framework blocks"};
    static_assert(std::size(kNames) == static_cast<size_t>(ProfilePhase::kCount));
    std::fprintf(stderr, "streamcheck[profile]:");
    for (int i = 0; i < static_cast<int>(ProfilePhase::kCount); ++i) {
      const uint64_t n = slots_[i].count.load(), ns = slots_[i].ns.load();
      if (n > 0)
        std::fprintf(stderr, " %s %llu x %.0f ns (%.1f ms);", kNames[i], static_cast<unsigned long long>(n),
                     double(ns) / double(n), double(ns) / 1e6);
    }
    std::fprintf(stderr, "\n");
  }

 private:
  struct Slot {
    std::atomic<uint64_t> count{0}, ns{0};
  };
  bool on_;
  Slot slots_[static_cast<int>(ProfilePhase::kCount)];
};

}  // namespace streamcheck::tracer
