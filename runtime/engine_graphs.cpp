// CUDA graphs: stream capture (cudaStreamBeginCapture/EndCapture, with
// fork/join through events), graphs built by the API (cudaGraphAdd*Node,
// cudaGraphAddDependencies), cudaGraphInstantiate, cudaGraphExecUpdate and
// cudaGraphLaunch. Captured work never runs at capture time.
#include <algorithm>

#include "runtime/engine_impl.h"

namespace streamcheck {

void Engine::Impl::BeginCapture(const TraceRecord& r) {
  EnterHostCall(r);
  StreamState& s = sync_.Stream(r.stream, r.thread);
  s.capture_frontier.clear();
  // cudaStreamBeginCaptureToGraph: the work joins a graph that exists, after
  // the nodes given. Into one streamcheck never saw made (a conditional
  // node's body, which only the driver creates) it is captured all the same,
  // so it does not run now, and dropped at the end of the capture.
  if (r.graph != 0 && graphs_.HasGraph(r.graph)) {
    const Graph& g = graphs_.graph(r.graph);
    for (Handle dep : r.deps) {
      const auto it = g.index_of.find(dep);
      if (it != g.index_of.end()) s.capture_frontier.push_back(it->second);
      else Anomaly("capture into a graph after a node streamcheck does not know");
    }
    s.capture_graph = r.graph;
    capturing_[r.graph] = {&s};
    return;
  }
  if (r.graph != 0) Anomaly("capture into a graph streamcheck does not know (a conditional node's body): not modeled");
  const uint64_t id = graphs_.NewCaptureId();
  graphs_.graph(id) = Graph{};
  s.capture_graph = id;
  capturing_[id] = {&s};
}

void Engine::Impl::EndCapture(const TraceRecord& r) {
  EnterHostCall(r);
  StreamState& s = sync_.Stream(r.stream, r.thread);
  const uint64_t id = s.capture_graph;
  if (id == 0) {
    Anomaly("cudaStreamEndCapture on a stream that is not capturing");
    return;
  }
  // Every stream that joined the capture leaves it with the origin stream.
  for (StreamState* joined : capturing_[id]) {
    joined->capture_graph = 0;
    joined->capture_frontier.clear();
  }
  capturing_.erase(id);
  if (!GraphModel::IsCaptureId(id)) return;  // captured into a graph that exists, which keeps the nodes
  if (r.graph != 0) graphs_.MoveGraph(id, r.graph);
  else graphs_.DestroyGraph(id);  // capture failed or was invalidated, or went into an unknown graph
}

void Engine::Impl::CaptureNode(const TraceRecord& r, StreamState& s,
                               const std::vector<MemoryAccess>& accesses) {
  Graph& g = graphs_.graph(s.capture_graph);
  GraphNode node;
  node.op = r.op;
  node.site = SiteOf(r);
  node.trace_index = index_;
  node.accesses = accesses;
  node.deps = s.capture_frontier;
  g.nodes.push_back(std::move(node));
  s.capture_frontier.assign(1, static_cast<uint32_t>(g.nodes.size() - 1));
}

// cudaEventRecord on a capturing stream marks a fork/join point of the capture.
void Engine::Impl::CaptureEventRecord(StreamState& s, EventState& e) {
  e.capture_graph = s.capture_graph;
  e.capture_nodes = s.capture_frontier;
}

// cudaStreamWaitEvent on an event recorded in a capture: the waiting stream
// joins the capture (fork) or adds the event's nodes to its frontier (join).
void Engine::Impl::CaptureEventWait(StreamState& s, const EventState& e) {
  if (s.capture_graph == 0) {
    s.capture_graph = e.capture_graph;
    s.capture_frontier = e.capture_nodes;
    capturing_[e.capture_graph].push_back(&s);
    return;
  }
  if (s.capture_graph != e.capture_graph) {
    Anomaly("wait across two different stream captures");
    return;
  }
  for (uint32_t n : e.capture_nodes)
    if (std::find(s.capture_frontier.begin(), s.capture_frontier.end(), n) == s.capture_frontier.end())
      s.capture_frontier.push_back(n);
}

// cudaGraphAddKernelNode, cudaGraphAddMemcpyNode, cudaGraphAddMemsetNode,
// cudaGraphAddHostNode, cudaGraphAddEmptyNode (and their driver twins).
void Engine::Impl::GraphAddNode(const TraceRecord& r) {
  EnterHostCall(r);
  Graph& g = graphs_.graph(r.graph);
  GraphNode node;
  node.op = r.node_op;
  node.site = SiteOf(r);
  node.trace_index = index_;
  if (r.node_op == OpCode::kKernelLaunch) node.accesses = r.accesses;
  else if (r.node_op == OpCode::kMemcpy || r.node_op == OpCode::kMemset) node.accesses = TransferAccesses(r);
  for (Handle d : r.deps) {
    auto it = g.index_of.find(d);
    if (it == g.index_of.end()) Anomaly("graph node depends on an unknown node");
    else node.deps.push_back(it->second);
  }
  g.index_of[r.node] = static_cast<uint32_t>(g.nodes.size());
  g.nodes.push_back(std::move(node));
}

// cudaGraphAddDependencies: `node` waits for each of `deps`.
void Engine::Impl::GraphAddDependency(const TraceRecord& r) {
  EnterHostCall(r);
  Graph& g = graphs_.graph(r.graph);
  auto to = g.index_of.find(r.node);
  if (to == g.index_of.end()) {
    Anomaly("graph dependency on an unknown node");
    return;
  }
  for (Handle d : r.deps) {
    auto from = g.index_of.find(d);
    if (from == g.index_of.end()) Anomaly("graph dependency on an unknown node");
    else g.nodes[to->second].deps.push_back(from->second);
  }
}

// cudaGraphInstantiate / cudaGraphExecUpdate: the exec runs a snapshot of the graph.
void Engine::Impl::GraphInstantiate(const TraceRecord& r) {
  EnterHostCall(r);
  if (!graphs_.HasGraph(r.graph)) {
    Anomaly("instantiate of an unknown graph");
    return;
  }
  GraphExec& exec = graphs_.Instantiate(r.graph_exec, graphs_.graph(r.graph));
  if (exec.has_cycle) Anomaly("graph with a dependency cycle");
}

// One lane per chain of nodes: a node continues the lane of its first
// dependency that no other node continued yet. Linear captures need one lane.
void Engine::Impl::AssignGraphLanes(GraphExec& exec, Handle exec_handle) {
  std::vector<bool> continued(exec.nodes.size(), false);
  std::vector<Lane> spare;  // lanes of an earlier instantiation of this exec, reused
  for (Lane l : exec.node_lane)
    if (l != kNoLane && std::find(spare.begin(), spare.end(), l) == spare.end()) spare.push_back(l);
  std::vector<Lane> lanes(exec.nodes.size(), kNoLane);
  size_t next_spare = 0;
  for (uint32_t n : exec.topo_order) {
    for (uint32_t d : exec.nodes[n].deps) {
      if (!continued[d] && lanes[d] != kNoLane) {
        continued[d] = true;
        lanes[n] = lanes[d];
        break;
      }
    }
    if (lanes[n] != kNoLane) continue;
    if (next_spare < spare.size()) {
      lanes[n] = spare[next_spare++];
    } else {
      LaneInfo info;
      info.kind = LaneKind::kGraphNodes;
      info.handle = exec_handle;
      lanes[n] = sync_.NewLane(info);
    }
  }
  exec.node_lane = std::move(lanes);
}

// cudaGraphLaunch: the nodes run after the stream's prior work and after the
// exec's previous launch; the stream's later work runs after all nodes.
void Engine::Impl::GraphLaunch(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  StreamState& s = sync_.Stream(r.stream, r.thread);
  GraphExec* exec = graphs_.FindExec(r.graph_exec);
  if (exec == nullptr) {
    Anomaly("launch of an unknown graph exec");
    return;
  }
  if (s.capture_graph != 0) {
    Anomaly("graph launch inside a stream capture (child graphs are not modeled)");
    return;
  }
  DefaultStreamUse(r, s);
  if (exec->node_lane.empty() || exec->node_lane[0] == kNoLane || exec->node_lane.size() != exec->nodes.size())
    AssignGraphLanes(*exec, r.graph_exec);
  sync_.PrepareStreamOperation(s, t);
  sync_.TickStream(s);
  VectorClock entry = s.clock;
  entry.Join(exec->completion);
  std::vector<VectorClock> node_clock(exec->nodes.size());
  VectorClock completion = entry;
  for (uint32_t n : exec->topo_order) {
    const GraphNode& node = exec->nodes[n];
    VectorClock& vc = node_clock[n];
    vc = entry;
    for (uint32_t d : node.deps) vc.Join(node_clock[d]);
    const Lane lane = exec->node_lane[n];
    lanes_.Mutable(lane).launch_stream = s.handle;
    lanes_.Mutable(lane).launch_lane = s.lane;
    lanes_.Mutable(lane).device = s.device;
    vc.Set(lane, vc.Get(lane) + 1);
    ++stats_.stream_operations;
    ApplyAccesses(lane, vc, node.site, node.accesses, index_, r.timestamp_ns);
    completion.Join(vc);
  }
  exec->completion = completion;
  s.clock.Join(completion);
}

}  // namespace streamcheck
