#include "runtime/lane_table.h"

#include "runtime/hex.h"

namespace streamcheck {

std::string LaneTable::Describe(Lane lane) const {
  const LaneInfo& info = infos_[lane];
  const std::string device = std::to_string(info.device);
  switch (info.kind) {
    case LaneKind::kHostThread:
      return "host thread " + std::to_string(info.thread);
    case LaneKind::kLegacyStream:
      return "legacy default stream of device " + device;
    case LaneKind::kPerThreadStream:
      return "per-thread default stream of host thread " + std::to_string(info.thread) +
             " on device " + device;
    case LaneKind::kStream:
      return "stream " + Hex(info.handle) + (info.IsNonBlocking() ? " (non-blocking)" : " (blocking)") +
             " on device " + device;
    case LaneKind::kGraphNodes:
      // The launch stream's own description: reports name a graph's nodes
      // by the stream they were launched on (the default stream, or stream 2).
      if (info.launch_lane != kNoLane && info.launch_lane != lane)
        return "graph exec " + Hex(info.handle) + " launched on " + Describe(info.launch_lane);
      return "graph exec " + Hex(info.handle) + " launched on stream " + Hex(info.launch_stream);
    case LaneKind::kMpiOperation:
      return "the MPI library (an operation of host thread " + std::to_string(info.thread) + ")";
  }
  return "lane " + std::to_string(lane);
}

}  // namespace streamcheck

namespace streamcheck {

std::string_view LaneTable::KindName(Lane lane) const {
  const LaneInfo& info = infos_[lane];
  switch (info.kind) {
    case LaneKind::kHostThread: return "host";
    case LaneKind::kLegacyStream: return "legacy";
    case LaneKind::kPerThreadStream: return "per-thread";
    case LaneKind::kStream: return info.ordinal != 0 ? "created" : "implicit";
    case LaneKind::kGraphNodes: return "graph";
    case LaneKind::kMpiOperation: return "mpi";
  }
  return "";
}

}  // namespace streamcheck
