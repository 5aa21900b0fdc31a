#include "tracer/stacks/repeated_stacks.h"

#include <algorithm>

#include "tracer/hot_path.h"
#include "tracer/thread_state.h"

namespace streamcheck::tracer {
namespace {

// Reads the caller's frames, which are no objects of ours: through volatile
// (nothing to assume about them) and without AddressSanitizer's checks
// (their locals' red zones are where saved registers may sit).
__attribute__((no_sanitize("address"))) STREAMCHECK_HOT bool AllHold(const std::vector<StackWitness>& witnesses) {
  for (const StackWitness& w : witnesses)
    if (*reinterpret_cast<const volatile uintptr_t*>(w.address) != w.value) return false;
  return true;
}

}  // namespace

STREAMCHECK_HOT RepeatedStackCounts& RepeatedStackCounters() {
  static auto* counts = new RepeatedStackCounts;  // lives past exit handlers
  return *counts;
}

STREAMCHECK_HOT RepeatedStacks& RepeatedStacks::ThisThread() { return tracer::ThisThread().repeated_stacks; }

STREAMCHECK_HOT StackId RepeatedStacks::Find(uintptr_t outer_sp, uint64_t owner) {
  // Any entry whose witnesses all hold says what an unwind would return, so
  // the order they are tried in is free: the last one found goes first.
  for (size_t i = 0; i < kEntries; ++i) {
    const size_t index = (last_found_ + i) % kEntries;
    const Entry& e = entries_[index];
    if (e.outer_sp == outer_sp && e.owner == owner && AllHold(e.witnesses)) {
      last_found_ = index;
      return e.id;
    }
  }
  return 0;
}

bool RepeatedStacks::ShouldWalk(uintptr_t outer_sp) {
  ++misses_;
  const auto end = recent_misses_.end();
  if (std::find(recent_misses_.begin(), end, outer_sp) == end) {
    recent_misses_[next_miss_++ % kRecentMisses] = outer_sp;
    return false;
  }
  if (walks_ >= kFreeWalks + misses_ / kMissesPerWalk) return false;
  ++walks_;
  return true;
}

void RepeatedStacks::Remember(uintptr_t outer_sp, uint64_t owner, StackId id,
                              const std::vector<StackWitness>& witnesses) {
  Entry& e = entries_[next_entry_++ % kEntries];
  e.outer_sp = outer_sp;
  e.owner = owner;
  e.id = id;
  e.witnesses = witnesses;
}

StackBounds RepeatedStacks::WitnessBounds(uintptr_t outer_sp) {
  if (!bounds_known_) bounds_ = StackBounds::OfThisThread(), bounds_known_ = true;
  if (outer_sp < 16 || !bounds_.Contains(outer_sp - 16, 16)) return {};
  return {outer_sp - 16, bounds_.high};
}

}  // namespace streamcheck::tracer
