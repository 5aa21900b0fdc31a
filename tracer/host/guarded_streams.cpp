#include "tracer/host/guarded_streams.h"

namespace streamcheck::tracer::host {

uint64_t GuardedStreams::KeyOf(Handle stream, ThreadId thread) {
  // Real handles are aligned pointers: a per-thread stream's key (low bits
  // 2, the thread above) meets none of them.
  return stream == kCudaStreamPerThread ? (uint64_t{thread} << 8) | kCudaStreamPerThread : stream;
}

bool GuardedStreams::IsLegacy(Handle stream) { return stream == kLegacyStreamHandle || stream == kCudaStreamLegacy; }

void GuardedStreams::Clear() {
  streams_.clear();
  events_.clear();
  legacy_marked_ = false;
}

void GuardedStreams::Note(const TraceRecord& r) {
  if (r.guards_host_pages) {
    streams_.insert(KeyOf(r.stream, r.thread));
    legacy_marked_ |= IsLegacy(r.stream);
    return;
  }
  switch (r.op) {
    case OpCode::kEventRecord:
      // A re-record replaces the capture: a stale mark would only cost waits.
      if (streams_.empty()) {
        if (!events_.empty()) events_.erase(r.event);
        return;
      }
      events_[r.event] = streams_.count(KeyOf(r.stream, r.thread)) != 0 || legacy_marked_;
      return;
    case OpCode::kStreamWaitEvent:
      if (const auto it = events_.find(r.event); it != events_.end() && it->second)
        streams_.insert(KeyOf(r.stream, r.thread));
      return;
    default:
      return;
  }
}

bool GuardedStreams::Covers(const TraceRecord& r) {
  auto marked_event = [this](Handle event) {
    const auto it = events_.find(event);
    return it != events_.end() && it->second;
  };
  switch (r.op) {
    case OpCode::kStreamSynchronize:
    case OpCode::kStreamQuery: {
      // The legacy default stream waits for every blocking stream's work.
      if (IsLegacy(r.stream)) {
        const bool covers = !empty();
        Clear();
        return covers;
      }
      const bool covers = streams_.erase(KeyOf(r.stream, r.thread)) != 0;
      return covers || AnyLegacy();
    }
    case OpCode::kEventSynchronize:
    case OpCode::kEventQuery:
      return marked_event(r.event);
    case OpCode::kEventElapsedTime:
      return marked_event(r.event) || marked_event(r.event2);
    case OpCode::kDeviceSynchronize:
    case OpCode::kDeviceReset:
    case OpCode::kFree: {
      const bool covers = !empty();
      Clear();
      return covers;
    }
    default:
      // Synchronous copies and memsets run on a default stream, which may be
      // ordered after any blocking stream's work.
      return !empty();
  }
}

}  // namespace streamcheck::tracer::host
