// CUDA graphs as the engine sees them: graphs built by stream capture or by
// the graph API, and executable graphs whose launches run the nodes (with
// their internal dependencies) in a stream's order. Captured work does not run
// at capture time; it runs once per launch.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "runtime/ids.h"
#include "runtime/trace_record.h"
#include "runtime/vector_clock.h"

namespace streamcheck {

struct GraphNode {
  OpCode op = OpCode::kInvalid;
  uint32_t site = 0;
  uint64_t trace_index = 0;
  std::vector<MemoryAccess> accesses;  // resolved at add time
  std::vector<uint32_t> deps;          // indices of nodes this one waits for
  // A host node whose runs the tracer follows: the id its kHostFuncBegin
  // records carry, one run per launch (engine_host_funcs.cpp). 0: not followed.
  uint32_t host_func = 0;
};

struct Graph {
  std::vector<GraphNode> nodes;
  std::unordered_map<Handle, uint32_t> index_of;  // node handle -> index (API-built graphs)
};

struct GraphExec {
  std::vector<GraphNode> nodes;
  std::vector<uint32_t> topo_order;
  std::vector<Lane> node_lane;  // chain decomposition: a lane per chain of nodes
  // node_lane's distinct lanes, and each node's index among them: a node's
  // clock at a launch differs from the launch's entry only there
  // (Engine::Impl::GraphLaunch).
  std::vector<Lane> chain_lanes;
  std::vector<uint32_t> node_chain;
  // Whether node_lane was assigned for `nodes`. An instantiation into an exec
  // that exists (cudaGraphExecUpdate) clears it: the lanes it had are then
  // spares for the new nodes (Engine::Impl::AssignGraphLanes), so updating an
  // exec again and again adds no lanes.
  bool lanes_assigned = false;
  VectorClock completion;       // every node of the previous launch
  bool has_cycle = false;
};

class GraphModel {
 public:
  // Graph ids: user handles for API graphs and finished captures; in-progress
  // captures use ids from NewCaptureId() so they cannot clash with handles.
  uint64_t NewCaptureId() { return kCaptureIdBase + next_capture_++; }
  static bool IsCaptureId(uint64_t id) { return id >= kCaptureIdBase; }
  Graph& graph(uint64_t id) { return graphs_[id]; }
  bool HasGraph(uint64_t id) const { return graphs_.count(id) != 0; }
  void MoveGraph(uint64_t from, uint64_t to);
  void DestroyGraph(uint64_t id) { graphs_.erase(id); }

  // Snapshot of `graph` into `exec` (cudaGraphInstantiate, cudaGraphExecUpdate).
  // Keeps lanes already assigned to the exec so clocks stay monotonic.
  GraphExec& Instantiate(Handle exec, const Graph& graph);
  GraphExec* FindExec(Handle exec);
  void DestroyExec(Handle exec) { execs_.erase(exec); }
  size_t HeapBytes() const;

 private:
  static constexpr uint64_t kCaptureIdBase = uint64_t{1} << 63;
  uint64_t next_capture_ = 1;
  std::unordered_map<uint64_t, Graph> graphs_;
  std::unordered_map<Handle, GraphExec> execs_;
};

// Kahn's algorithm; returns false on a cycle (order then holds what was sortable).
bool TopologicalOrder(const std::vector<GraphNode>& nodes, std::vector<uint32_t>* order);

}  // namespace streamcheck
