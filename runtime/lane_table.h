// What each lane is, for reports ("stream 0x5555 (non-blocking)"), and which
// lanes belong to the host (host/host pairs are not our business).
#pragma once

#include <string>
#include <vector>

#include "runtime/ids.h"
#include "runtime/vector_clock.h"

namespace streamcheck {

enum class LaneKind : uint8_t {
  kHostThread,
  kLegacyStream,
  kPerThreadStream,
  kStream,
  kGraphNodes,  // a chain of nodes of one executable graph
};

struct LaneInfo {
  LaneKind kind = LaneKind::kStream;
  Handle handle = 0;  // stream handle, or graph exec handle for kGraphNodes
  uint32_t flags = 0; // stream creation flags
  DeviceId device = 0;
  ThreadId thread = 0;  // host thread (kHostThread, kPerThreadStream)
  Handle launch_stream = 0;  // kGraphNodes: stream of the most recent launch
  bool IsHost() const { return kind == LaneKind::kHostThread; }
  bool IsNonBlocking() const { return (flags & kStreamNonBlocking) != 0; }
};

class LaneTable {
 public:
  Lane Add(const LaneInfo& info) {
    infos_.push_back(info);
    return static_cast<Lane>(infos_.size() - 1);
  }
  const LaneInfo& Get(Lane lane) const { return infos_[lane]; }
  LaneInfo& Mutable(Lane lane) { return infos_[lane]; }
  bool IsHost(Lane lane) const { return infos_[lane].IsHost(); }
  size_t size() const { return infos_.size(); }

  // "stream 0x7f00 (non-blocking)", "legacy default stream of device 0", ...
  std::string Describe(Lane lane) const;

 private:
  std::vector<LaneInfo> infos_;
};

}  // namespace streamcheck
