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
  if (r.op == OpCode::kHostFunc) node.host_func = r.id;  // a captured host function the tracer follows
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
  else if (r.node_op == OpCode::kMemcpy || r.node_op == OpCode::kMemset) TransferAccesses(r, &node.accesses);
  else if (r.node_op == OpCode::kHostFunc) node.host_func = r.id;  // a host node the tracer follows (else 0)
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
// A chain takes a lane the exec had before (cudaGraphExecUpdate), else one
// of a destroyed exec that the launch is ordered after, else a new one.
void Engine::Impl::AssignGraphLanes(GraphExec& exec, Handle exec_handle, const VectorClock& entry) {
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
    } else if (const Lane retired = TakeRetiredGraphLane(entry); retired != kNoLane) {
      lanes_.Mutable(retired).handle = exec_handle;
      lanes[n] = retired;
    } else {
      LaneInfo info;
      info.kind = LaneKind::kGraphNodes;
      info.handle = exec_handle;
      lanes[n] = sync_.NewLane(info);
    }
  }
  for (; next_spare < spare.size(); ++next_spare)  // fewer chains than before
    retired_graph_lanes_.push_back({spare[next_spare], exec.completion.Get(spare[next_spare])});
  exec.node_lane = std::move(lanes);
  exec.chain_lanes.clear();
  exec.node_chain.assign(exec.nodes.size(), ~uint32_t{0});
  for (uint32_t n : exec.topo_order) {
    const Lane lane = exec.node_lane[n];
    auto it = std::find(exec.chain_lanes.begin(), exec.chain_lanes.end(), lane);
    if (it == exec.chain_lanes.end()) it = exec.chain_lanes.insert(it, lane);
    exec.node_chain[n] = uint32_t(it - exec.chain_lanes.begin());
  }
  exec.lanes_assigned = true;
}

// cudaGraphExecDestroy: the exec's lanes may serve another exec's nodes
// (TakeRetiredGraphLane), each with the clock of its last node run.
void Engine::Impl::GraphExecDestroy(const TraceRecord& r) {
  EnterHostCall(r);
  if (const GraphExec* exec = graphs_.FindExec(r.graph_exec)) {
    for (Lane lane : exec->node_lane) {
      const bool kept = std::any_of(retired_graph_lanes_.begin(), retired_graph_lanes_.end(),
                                    [lane](const Epoch& e) { return e.lane == lane; });
      if (lane != kNoLane && !kept) retired_graph_lanes_.push_back({lane, exec->completion.Get(lane)});
    }
  }
  graphs_.DestroyExec(r.graph_exec);
}

// A lane of a destroyed exec whose last node run `entry` is ordered after,
// or kNoLane. Nodes on it are then ordered after everything done on it
// before, as they would be on a new lane (their clocks cover its last
// epoch), so sharing it changes no verdict; it keeps the lanes of a program
// that captures, instantiates and destroys graphs in a loop from growing.
Lane Engine::Impl::TakeRetiredGraphLane(const VectorClock& entry) {
  for (size_t i = 0; i < retired_graph_lanes_.size(); ++i) {
    const Epoch last = retired_graph_lanes_[i];
    if (!entry.Covers(last)) continue;
    retired_graph_lanes_.erase(retired_graph_lanes_.begin() + static_cast<std::ptrdiff_t>(i));
    return last.lane;
  }
  return kNoLane;
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
  sync_.PrepareStreamOperation(s, t);
  // The launch's place on its stream stands for all its nodes' work: the
  // stream learns their completion below, so a host thread ordered after
  // this place is after every node (the guard pages a launch marks open then).
  const Epoch launched = sync_.TickStream(s);
  last_device_work_ = {launched.lane, launched.clock};
  VectorClock& entry = graph_entry_clock_;
  entry = s.clock;
  entry.Join(exec->completion);
  if (!exec->lanes_assigned) AssignGraphLanes(*exec, r.graph_exec, entry);
  // A node's clock is the entry joined with its dependencies' and one more
  // on its own lane, so it differs from the entry only on the exec's chain
  // lanes: each node keeps those (K of them, a linear capture's one), not a
  // whole clock of ~135 lanes copied and joined per node and dependency,
  // and `work` is the entry with the running node's values there. Kept
  // between launches, as the entry: a launch allocates nothing. Each node's values are
  // set before they are read (topo_order puts a node after its deps).
  const size_t k = exec->chain_lanes.size();
  std::vector<Clock>& chain_clocks = graph_chain_clocks_;  // node n's at [n * k, n * k + k)
  if (chain_clocks.size() < exec->nodes.size() * k) chain_clocks.resize(exec->nodes.size() * k);
  std::vector<Clock>& completion_chains = graph_completion_chains_;
  completion_chains.resize(k);
  for (size_t c = 0; c < k; ++c) completion_chains[c] = entry.Get(exec->chain_lanes[c]);
  VectorClock& work = graph_node_clock_;
  work = entry;
  for (uint32_t n : exec->topo_order) {
    const GraphNode& node = exec->nodes[n];
    Clock* mine = chain_clocks.data() + size_t{n} * k;
    for (size_t c = 0; c < k; ++c) mine[c] = entry.Get(exec->chain_lanes[c]);
    for (uint32_t d : node.deps) {
      const Clock* theirs = chain_clocks.data() + size_t{d} * k;
      for (size_t c = 0; c < k; ++c) mine[c] = std::max(mine[c], theirs[c]);
    }
    ++mine[exec->node_chain[n]];
    for (size_t c = 0; c < k; ++c) {
      work.Set(exec->chain_lanes[c], mine[c]);
      completion_chains[c] = std::max(completion_chains[c], mine[c]);
    }
    const Lane lane = exec->node_lane[n];
    lanes_.Mutable(lane).launch_stream = s.handle;
    lanes_.Mutable(lane).launch_lane = s.lane;
    lanes_.Mutable(lane).device = s.device;
    ++stats_.stream_operations;
    ApplyAccesses(lane, work, node.site, node.accesses, index_, r.timestamp_ns);
    if (node.host_func != 0) QueueHostFuncRun(node.host_func, lane, work);
  }
  VectorClock& completion = entry;  // the entry with every node's values
  for (size_t c = 0; c < k; ++c) completion.Set(exec->chain_lanes[c], completion_chains[c]);
  exec->completion = completion;
  s.Learn(completion);
}

}  // namespace streamcheck
