#include "runtime/graph_model.h"

#include "runtime/memory_estimate.h"
namespace streamcheck {

void GraphModel::MoveGraph(uint64_t from, uint64_t to) {
  auto it = graphs_.find(from);
  if (it == graphs_.end()) return;
  Graph g = std::move(it->second);
  graphs_.erase(it);
  graphs_[to] = std::move(g);
}

GraphExec& GraphModel::Instantiate(Handle exec_handle, const Graph& graph) {
  GraphExec& exec = execs_[exec_handle];
  exec.nodes = graph.nodes;
  exec.has_cycle = !TopologicalOrder(exec.nodes, &exec.topo_order);
  exec.lanes_assigned = false;  // by the engine at the next launch, reusing node_lane's
  return exec;
}

namespace {
size_t NodesBytes(const std::vector<GraphNode>& nodes) {
  size_t bytes = memory::Buffer(nodes);
  for (const GraphNode& n : nodes) bytes += memory::Buffer(n.accesses) + memory::Buffer(n.deps);
  return bytes;
}
}  // namespace

size_t GraphModel::HeapBytes() const {
  size_t bytes = memory::HashMap(graphs_) + memory::HashMap(execs_);
  for (const auto& [id, g] : graphs_) bytes += NodesBytes(g.nodes) + memory::HashMap(g.index_of);
  for (const auto& [handle, e] : execs_)
    bytes += NodesBytes(e.nodes) + memory::Buffer(e.topo_order) + memory::Buffer(e.node_lane) + memory::Buffer(e.chain_lanes) +
             memory::Buffer(e.node_chain) + e.completion.HeapBytes();
  return bytes;
}

GraphExec* GraphModel::FindExec(Handle exec) {
  auto it = execs_.find(exec);
  return it == execs_.end() ? nullptr : &it->second;
}

bool TopologicalOrder(const std::vector<GraphNode>& nodes, std::vector<uint32_t>* order) {
  const size_t n = nodes.size();
  std::vector<uint32_t> pending(n, 0);
  std::vector<std::vector<uint32_t>> successors(n);
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t d : nodes[i].deps) {
      if (d >= n) continue;
      ++pending[i];
      successors[d].push_back(i);
    }
  }
  order->clear();
  for (uint32_t i = 0; i < n; ++i)
    if (pending[i] == 0) order->push_back(i);
  for (size_t head = 0; head < order->size(); ++head) {
    for (uint32_t s : successors[(*order)[head]])
      if (--pending[s] == 0) order->push_back(s);
  }
  return order->size() == n;
}

}  // namespace streamcheck
