// What each lane is, for reports ("stream 0x5555 (non-blocking)"), and which
// lanes belong to the host (host/host pairs are not our business).
#pragma once

#include <string>
#include <string_view>
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
  // The MPI library working on a pending operation's buffers for `thread`
  // (engine_mpi.cpp): not the host thread's own order, so not a host lane.
  kMpiOperation,
};

struct LaneInfo {
  LaneKind kind = LaneKind::kStream;
  Handle handle = 0;  // stream handle, or graph exec handle for kGraphNodes
  uint32_t flags = 0; // stream creation flags
  DeviceId device = 0;
  ThreadId thread = 0;  // host thread (kHostThread, kPerThreadStream)
  Handle launch_stream = 0;  // kGraphNodes: stream of the most recent launch
  Lane launch_lane = kNoLane;  // kGraphNodes: that stream's lane, which names it in reports
  // Where the stream came from, for naming it in reports (ObjectOrigin):
  // the site of its create call and the process's count of streams created
  // so far (0: no create seen). The site of its first operation is
  // LaneTable::FirstSite.
  uint32_t created_site = 0;
  uint32_t ordinal = 0;
  bool IsHost() const { return kind == LaneKind::kHostThread; }
  bool IsNonBlocking() const { return (flags & kStreamNonBlocking) != 0; }
  bool IsMpi() const { return kind == LaneKind::kMpiOperation; }
};

class LaneTable {
 public:
  Lane Add(const LaneInfo& info) {
    infos_.push_back(info);
    first_sites_.push_back(0);
    return static_cast<Lane>(infos_.size() - 1);
  }
  const LaneInfo& Get(Lane lane) const { return infos_[lane]; }
  LaneInfo& Mutable(Lane lane) { return infos_[lane]; }
  bool IsHost(Lane lane) const { return infos_[lane].IsHost(); }
  bool IsMpi(Lane lane) const { return infos_[lane].IsMpi(); }
  size_t size() const { return infos_.size(); }

  // "stream 0x7f00 (non-blocking)", "legacy default stream of device 0", ...
  std::string Describe(Lane lane) const;
  // "legacy", "per-thread", "created", "implicit", "graph" or "host".
  std::string_view KindName(Lane lane) const;

  // A create call made the stream on `lane`: numbers it and keeps its site.
  void NoteCreated(Lane lane, uint32_t site) {
    infos_[lane].created_site = site;
    infos_[lane].ordinal = ++created_streams_;
  }
  // Once per stream operation (the replay's hot path: a dense array of
  // 4 bytes a lane, one compare): keeps the site of the lane's first.
  void NoteOperation(Lane lane, uint32_t site) {
    if (first_sites_[lane] == 0) [[unlikely]] first_sites_[lane] = site;
  }
  uint32_t FirstSite(Lane lane) const { return first_sites_[lane]; }

 private:
  std::vector<LaneInfo> infos_;
  std::vector<uint32_t> first_sites_;  // per lane; 0 = no operation yet
  uint32_t created_streams_ = 0;
};

}  // namespace streamcheck
