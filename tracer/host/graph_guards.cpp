#include "tracer/host/graph_guards.h"

#include "tracer/host/guarded_streams.h"

namespace streamcheck::tracer::host {

uint64_t GraphGuards::CaptureOf(const TraceRecord& r) const {
  if (capturing_.empty()) return 0;
  const auto it = capturing_.find(GuardedStreams::KeyOf(r.stream, r.thread));
  return it != capturing_.end() ? it->second : 0;
}

bool GraphGuards::Captured(const TraceRecord& r, const std::vector<Range>& ranges) {
  switch (r.op) {
    case OpCode::kStreamBeginCapture: {
      const uint64_t capture = next_capture_++;
      capturing_[GuardedStreams::KeyOf(r.stream, r.thread)] = capture;
      captures_[capture];
      return false;
    }
    case OpCode::kEventRecord:
      if (const uint64_t capture = CaptureOf(r)) {
        capture_events_[r.event] = capture;
      } else if (!capture_events_.empty()) {
        capture_events_.erase(r.event);
      }
      return false;
    case OpCode::kStreamWaitEvent:
      // A stream waiting for an event recorded in a capture joins it.
      if (const auto it = capture_events_.find(r.event); it != capture_events_.end() && CaptureOf(r) == 0)
        capturing_[GuardedStreams::KeyOf(r.stream, r.thread)] = it->second;
      return false;
    case OpCode::kStreamEndCapture: {
      const uint64_t capture = CaptureOf(r);
      if (capture == 0) return false;
      std::vector<Range>& kept = captures_[capture];
      if (r.graph != 0 && !kept.empty()) {
        std::vector<Range>& graph = graphs_[r.graph];
        graph.insert(graph.end(), kept.begin(), kept.end());
      }
      captures_.erase(capture);
      std::erase_if(capturing_, [&](const auto& s) { return s.second == capture; });
      std::erase_if(capture_events_, [&](const auto& e) { return e.second == capture; });
      return false;
    }
    case OpCode::kGraphInstantiate:
    case OpCode::kGraphExecUpdate: {
      const auto it = graphs_.find(r.graph);
      if (it != graphs_.end()) {
        execs_[r.graph_exec] = it->second;
      } else {
        execs_.erase(r.graph_exec);
      }
      return false;
    }
    case OpCode::kGraphDestroy:
      graphs_.erase(r.graph);
      return false;
    case OpCode::kGraphExecDestroy:
      execs_.erase(r.graph_exec);
      return false;
    case OpCode::kMemcpy:
    case OpCode::kMemset:
    case OpCode::kKernelLaunch:
    case OpCode::kHostFunc: {
      const uint64_t capture = CaptureOf(r);
      if (capture == 0) return false;
      std::vector<Range>& kept = captures_[capture];
      kept.insert(kept.end(), ranges.begin(), ranges.end());
      return true;
    }
    default:
      return false;
  }
}

void GraphGuards::AddNode(Handle graph, const std::vector<Range>& ranges) {
  if (ranges.empty()) return;
  std::vector<Range>& kept = graphs_[graph];
  kept.insert(kept.end(), ranges.begin(), ranges.end());
}

const std::vector<GraphGuards::Range>* GraphGuards::OfExec(Handle exec) const {
  const auto it = execs_.find(exec);
  return it != execs_.end() && !it->second.empty() ? &it->second : nullptr;
}

}  // namespace streamcheck::tracer::host
