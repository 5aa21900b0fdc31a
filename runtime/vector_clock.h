// Vector clocks over lanes. A lane is anything whose operations are totally
// ordered: a stream, a host thread, or a chain of nodes of an executable graph.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
    JoinLanes(clocks_.data(), other.clocks_.data(), other.clocks_.size());
  }

  size_t size() const { return clocks_.size(); }
  size_t HeapBytes() const { return memory::Buffer(clocks_); }
  void Clear() { clocks_.clear(); }
  friend bool operator==(const VectorClock&, const VectorClock&) = default;

 private:
  void Grow(size_t n) {
    if (clocks_.size() < n) clocks_.resize(n, 0);
  }
  // Lane-wise maximum, four lanes at a time: a PyTorch process's clocks are
  // some 130 lanes wide (its pool of streams), and GCC 12 at -O2 leaves the
  // plain loop scalar, 7 instructions a lane. SSE2 has no unsigned 32-bit
  // maximum (SSE4.1 has), so compare with the sign bits flipped and blend.
  static void JoinLanes(Clock* mine, const Clock* theirs, size_t n) {
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i flip = _mm_set1_epi32(static_cast<int>(0x80000000u));
    for (; i + 4 <= n; i += 4) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(mine + i));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(theirs + i));
      const __m128i b_greater = _mm_cmpgt_epi32(_mm_xor_si128(b, flip), _mm_xor_si128(a, flip));
      const __m128i max = _mm_or_si128(_mm_and_si128(b_greater, b), _mm_andnot_si128(b_greater, a));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(mine + i), max);
    }
#endif
    for (; i < n; ++i) mine[i] = std::max(mine[i], theirs[i]);
  }
  std::vector<Clock> clocks_;
};

}  // namespace streamcheck
