// Where recent operations of each lane sit in the trace (record index, host
// time), so shadow cells need not carry them. Bounded: a ring per lane keeps
// the last kDepth operations; older ones report as unknown (0).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/memory_estimate.h"
#include "runtime/prefetch.h"
#include "runtime/vector_clock.h"

namespace streamcheck {

class OpLog {
 public:
  struct Entry {
    Clock clock = 0;
    uint64_t trace_index = 0;
    uint64_t timestamp_ns = 0;
  };

  void Note(Epoch e, uint64_t trace_index, uint64_t timestamp_ns) {
    if (e.lane >= rings_.size()) rings_.resize(e.lane + 1);
    auto& ring = rings_[e.lane];
    if (!ring) ring = std::make_unique<Ring>();
    (*ring)[e.clock % kDepth] = {e.clock, trace_index, timestamp_ns};
    // A lane's entries are written in order but rarely (its ring was last
    // there kDepth operations ago, long out of cache): load the line a few
    // entries ahead so the store does not wait for it.
    PrefetchLine(&(*ring)[(e.clock + kPrefetchAhead) % kDepth]);
  }

  size_t HeapBytes() const {
    size_t bytes = memory::Buffer(rings_);
    for (const auto& ring : rings_)
      if (ring) bytes += memory::Chunk(sizeof(Ring));
    return bytes;
  }

  // The entry for `e`, or one with all zeros when it is no longer kept.
  Entry Find(Epoch e) const {
    if (e.lane >= rings_.size() || !rings_[e.lane]) return {};
    const Entry& entry = (*rings_[e.lane])[e.clock % kDepth];
    return entry.clock == e.clock ? entry : Entry{};
  }

 private:
  static constexpr size_t kDepth = 4096;
  static constexpr size_t kPrefetchAhead = 8;  // entries: three cache lines
  using Ring = std::array<Entry, kDepth>;
  std::vector<std::unique_ptr<Ring>> rings_;
};

}  // namespace streamcheck
