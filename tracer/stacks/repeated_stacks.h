// Recognizes a stack this thread captured before without unwinding it: most
// CUDA calls come from a loop, from the same frame at the same depth, and an
// unwind (0.3-0.8 us a call) is the largest part of what the tracer adds to
// a kernel launch. An entry holds the stack pointer of the capturing frame
// and the stack words that decided the earlier unwind (its witnesses,
// native_unwinder.h); when the same frame finds them all unchanged, an unwind
// would read the same words and return the same stack.
//
// Entries come from the slow, witnessing walk, which costs some 15 us: it
// runs only for a frame that already missed once recently, and within a
// budget per thread, so a program whose stacks never repeat pays nothing
// but the lookup.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include "runtime/ids.h"
#include "tracer/stacks/native_unwinder.h"

namespace streamcheck::tracer {

// Counted by every thread (relaxed), printed with STREAMCHECK_DEBUG=profile.
struct RepeatedStackCounts {
  std::atomic<uint64_t> hits{0};         // recognized without unwinding
  std::atomic<uint64_t> walks{0};        // slow walks that made an entry
  std::atomic<uint64_t> unwitnessed{0};  // slow walks that could not (signal frame, odd frame)
  std::atomic<uint64_t> mismatches{0};   // STREAMCHECK_DEBUG=stack-cache-verify: hits an unwind contradicted
};

class RepeatedStacks {
 public:
  // The calling thread's entries.
  static RepeatedStacks& ThisThread();

  // The stack an earlier capture from the frame at `outer_sp` got, if its
  // witnesses all still hold; 0 when none does. `owner` tells apart the
  // stack tables the ids belong to.
  StackId Find(uintptr_t outer_sp, uint64_t owner);
  // After a miss: whether a slow walk is worth its cost here (the frame
  // missed recently before, and the thread's walk budget allows it).
  bool ShouldWalk(uintptr_t outer_sp);
  void Remember(uintptr_t outer_sp, uint64_t owner, StackId id, const std::vector<StackWitness>& witnesses);
  // Where witnesses may lie for a capture whose frame starts at outer_sp:
  // the frame's own saved registers (from outer_sp - 16) up to the top of
  // this thread's stack. Empty off the thread's stack (a signal stack, a fiber).
  StackBounds WitnessBounds(uintptr_t outer_sp);

 private:
  struct Entry {
    uintptr_t outer_sp = 0;
    uint64_t owner = 0;
    StackId id = 0;
    std::vector<StackWitness> witnesses;
  };
  static constexpr size_t kEntries = 16, kRecentMisses = 16;
  // Walks a thread may always make, and one more per this many misses.
  static constexpr uint64_t kFreeWalks = 8, kMissesPerWalk = 256;

  std::array<Entry, kEntries> entries_;
  size_t next_entry_ = 0;
  size_t last_found_ = 0;  // a loop finds the same entry every time: tried first
  std::array<uintptr_t, kRecentMisses> recent_misses_{};
  size_t next_miss_ = 0;
  uint64_t misses_ = 0, walks_ = 0;
  StackBounds bounds_;
  bool bounds_known_ = false;
};

RepeatedStackCounts& RepeatedStackCounters();

}  // namespace streamcheck::tracer
