// The synchronization a program did most recently, kept so a finding can show
// the edges that did exist beside the one that is missing: event records and
// waits on streams, and host waits (stream, event and device synchronize,
// queries that returned cudaSuccess). A bounded ring: only synchronization
// calls add to it, never the launch path.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "runtime/ids.h"
#include "runtime/site_table.h"
#include "runtime/trace_record.h"
#include "runtime/vector_clock.h"

namespace streamcheck {

struct SyncEntry {
  OpCode op = OpCode::kInvalid;
  Lane lane = kNoLane;    // the stream that records or waits; the host thread's lane for host waits
  Lane target = kNoLane;  // a host wait for one stream (cudaStreamSynchronize): that stream's lane
  Handle event = 0;
  Site site;  // the call as it was made; not interned (no site table work on the sync path)
  uint64_t trace_index = 0;
  uint64_t timestamp_ns = 0;
};

class SyncHistory {
 public:
  void Add(const SyncEntry& entry) { ring_[next_++ % kDepth] = entry; }
  // The entries still kept with first < trace_index < last, oldest first.
  std::vector<SyncEntry> Between(uint64_t first, uint64_t last) const {
    std::vector<SyncEntry> out;
    const uint64_t kept = next_ < kDepth ? next_ : kDepth;
    for (uint64_t k = next_ - kept; k < next_; ++k) {
      const SyncEntry& e = ring_[k % kDepth];
      if (e.trace_index > first && e.trace_index < last) out.push_back(e);
    }
    return out;
  }

 private:
  static constexpr size_t kDepth = 256;
  std::array<SyncEntry, kDepth> ring_{};
  uint64_t next_ = 0;
};

}  // namespace streamcheck
