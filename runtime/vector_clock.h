// Vector clocks over lanes. A lane is anything whose operations are totally
// ordered: a stream, a host thread, or a chain of nodes of an executable graph.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/memory_estimate.h"

namespace streamcheck {

using Lane = uint32_t;
using Clock = uint32_t;
inline constexpr Lane kNoLane = ~Lane{0};

// One operation's position: the `clock`-th operation of `lane`.
struct Epoch {
  Lane lane = kNoLane;
  Clock clock = 0;
};

class VectorClock {
 public:
  Clock Get(Lane lane) const { return lane < clocks_.size() ? clocks_[lane] : 0; }

  // True when the operation at `epoch` happens before (or is) what this clock knows.
  bool Covers(Epoch epoch) const { return epoch.clock <= Get(epoch.lane); }

  void Set(Lane lane, Clock clock) {
    Grow(lane + 1);
    clocks_[lane] = clock;
  }

  void Join(const VectorClock& other) {
    Grow(other.clocks_.size());
    const size_t n = other.clocks_.size();
    Clock* mine = clocks_.data();
    const Clock* theirs = other.clocks_.data();
    for (size_t i = 0; i < n; ++i) mine[i] = std::max(mine[i], theirs[i]);
  }

  size_t size() const { return clocks_.size(); }
  size_t HeapBytes() const { return memory::Buffer(clocks_); }
  void Clear() { clocks_.clear(); }
  friend bool operator==(const VectorClock&, const VectorClock&) = default;

 private:
  void Grow(size_t n) {
    if (clocks_.size() < n) clocks_.resize(n, 0);
  }
  std::vector<Clock> clocks_;
};

}  // namespace streamcheck
