#include "runtime/trace/replay.h"

#include <array>

namespace streamcheck {

TraceSource::Status ReplayInto(TraceSource& source, Engine& engine) {
  // Decode kLookahead records ahead of the engine and prefetch what each will
  // touch: one record's processing is shorter than a cache miss to memory, so
  // the prefetch has to start several records early to hide it.
  constexpr size_t kLookahead = 8;
  std::array<TraceRecord, kLookahead> ring;
  size_t head = 0, queued = 0;
  TraceSource::Status status = TraceSource::Status::kRecord;
  for (;;) {
    while (queued < kLookahead && status == TraceSource::Status::kRecord) {
      TraceRecord& slot = ring[(head + queued) % kLookahead];
      status = source.Next(&slot);
      if (status != TraceSource::Status::kRecord) break;
      engine.Prefetch(slot);
      ++queued;
    }
    if (queued == 0) return status;
    engine.Process(ring[head]);
    head = (head + 1) % kLookahead;
    --queued;
  }
}

}  // namespace streamcheck
