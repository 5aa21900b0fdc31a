// The engine's own memory, table by table (EngineMemory), so that a long run
// can say what analysis holds and tests can check that a steady state does
// not grow.
#include "runtime/engine_impl.h"
#include "runtime/memory_estimate.h"

namespace streamcheck {

EngineMemory Engine::Impl::Memory() const {
  EngineMemory m;
  m.shadow = shadow_.HeapBytes();
  m.ordering = lanes_.HeapBytes() + op_log_.HeapBytes() + sync_.HeapBytes() + graphs_.HeapBytes() +
               event_origins_.HeapBytes() + memory::HashMap(capturing_) + memory::HashMap(pending_host_funcs_) +
               memory::HashMap(running_host_funcs_) + memory::Buffer(retired_graph_lanes_);
  for (const auto& [id, runs] : pending_host_funcs_) {
    m.ordering += memory::Buffer(runs);
    for (const HostFuncRun& run : runs) m.ordering += run.clock.HeapBytes();
  }
  for (const auto& [thread, run] : running_host_funcs_) m.ordering += run.clock.HeapBytes();
  m.ordering += memory::Buffer(graph_chain_clocks_) + memory::Buffer(graph_completion_chains_) +
                graph_node_clock_.HeapBytes() + graph_entry_clock_.HeapBytes();
  for (const auto& [id, streams] : capturing_) m.ordering += memory::Buffer(streams);
  m.sites = sites_.HeapBytes() + symbols_.HeapBytes() + scopes_.HeapBytes() + memory::HashMap(default_stream_objects_);
  m.findings = findings_.HeapBytes() + library_findings_.HeapBytes();
  m.other = sizeof(Impl) + allocations_.HeapBytes() + pool_blocks_.HeapBytes() + graph_memory_.HeapBytes() +
            memory::Buffer(pending_pageable_) + memory::Buffer(conflicts_) + memory::Buffer(transfer_) +
            memory::Buffer(copy_on_stream_) + memory::Buffer(copy_on_host_);
  return m;
}

void Engine::Impl::SampleMemory() {
  stats_.memory_bytes = Memory().total();
  stats_.peak_memory_bytes = std::max(stats_.peak_memory_bytes, stats_.memory_bytes);
}

}  // namespace streamcheck
