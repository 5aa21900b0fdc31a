// The host-visible pages a CUDA graph's nodes touch, so that a launch of the
// graph guards them as a stream's copy or kernel would (guard_table.h): a
// host function or host node reading what a kernel node still writes then
// faults and is judged (tests/gpu/scenarios/graph_host_node.cu). Work
// captured into a graph does not run at its capture: it guards nothing then,
// and its pages go with the graph (captures followed across the streams that
// join them through events, as CUDA's cross-stream capture does), to its
// instantiations and their launches. Graphs built by the API get their nodes'
// pages from their kGraphAddNode records.
//
// Only pages of regions (pinned, registered, managed memory) are kept, so a
// graph of device memory alone costs nothing at its launch. Under the
// tracer's lock, on the program's threads (HostGuards::Guard).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "runtime/trace_record.h"
#include "tracer/host/guard_table.h"

namespace streamcheck::tracer::host {

class GraphGuards {
 public:
  using Range = GuardTable::Range;
  // Whether `r`, on its way to the queue, is work captured into a graph
  // (its `ranges` are kept for the graph, nothing is to be guarded now).
  // Follows captures, instantiations and destructions from the other records.
  bool Captured(const TraceRecord& r, const std::vector<Range>& ranges);
  // A node added by the API (kGraphAddNode): its pages go with its graph.
  void AddNode(Handle graph, const std::vector<Range>& ranges);
  // The pages a launch of `exec` may touch (null: none known).
  const std::vector<Range>* OfExec(Handle exec) const;
  bool empty() const { return graphs_.empty() && execs_.empty() && capturing_.empty(); }
  // Some stream is capturing: work may be captured (else Captured need not
  // see a copy, memset, launch or host function: the launch path's case).
  bool capturing() const { return !capturing_.empty(); }

 private:
  uint64_t CaptureOf(const TraceRecord& r) const;
  std::unordered_map<uint64_t, uint64_t> capturing_;     // stream key -> capture
  std::unordered_map<Handle, uint64_t> capture_events_;  // an event recorded in a capture -> it
  std::unordered_map<uint64_t, std::vector<Range>> captures_;
  std::unordered_map<Handle, std::vector<Range>> graphs_, execs_;
  uint64_t next_capture_ = 1;
};

}  // namespace streamcheck::tracer::host
