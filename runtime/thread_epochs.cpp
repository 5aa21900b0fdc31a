#include "runtime/thread_epochs.h"

#include <algorithm>

#include "runtime/memory_estimate.h"

namespace streamcheck {

bool ChangesThreadClock(const TraceRecordFields& r) {
  switch (r.op) {
    // Host synchronization (engine.cpp); queries only when they succeeded.
    case OpCode::kEventSynchronize:
    case OpCode::kStreamSynchronize:
    case OpCode::kDeviceSynchronize:
    case OpCode::kDeviceReset:
      return true;
    case OpCode::kEventQuery:
    case OpCode::kStreamQuery:
      return r.result == 0;
    // Host-side operations (engine_memory.cpp): a host access, an allocation,
    // a free (which also synchronizes the device).
    case OpCode::kHostAccess:
    case OpCode::kMalloc:
    case OpCode::kFree:
      return true;
    // Synchronous copies and memsets may make the host wait; an asynchronous
    // copy takes place on the host when both sides are host memory, which
    // cudaMemcpyDefault may turn out to be (transfer_semantics.h).
    case OpCode::kMemcpy:
      return !r.is_async || r.copy_kind == CopyKind::kHostToHost || r.copy_kind == CopyKind::kDefault;
    case OpCode::kMemset:
      return !r.is_async;
    // What other threads are after, and a change of the rules itself.
    case OpCode::kThreadAcquire:
    case OpCode::kHostThreadOrder:
    // A host function's run: between these the thread's releases carry the
    // function's clock, not its own (runtime/engine_host_funcs.cpp), so an
    // epoch must not span either end.
    case OpCode::kHostFuncBegin:
    case OpCode::kHostFuncEnd:
      return true;
    default:
      return false;
  }
}

void ThreadEpochs::End(uint32_t epoch, const VectorClock& clock, Lane own_lane, uint64_t joins) {
  if (!ended_.empty() && epoch <= ended_.back().epoch) return;  // ended already (a repeated record)
  // Only the thread's own entry moved since the shared clock was taken: share it.
  if (!rest_ || joins != rest_joins_) {
    rest_ = std::make_shared<const VectorClock>(clock);
    rest_joins_ = joins;
  }
  ended_.push_back({epoch, clock.Get(own_lane), rest_});
  if (ended_.size() > kKept) ended_.pop_front();
}

size_t ThreadEpochs::HeapBytes() const {
  // A deque's blocks of 512 bytes, and one control block and clock per shared clock.
  size_t bytes = (ended_.size() * sizeof(Ended) / 512 + 1) * memory::Chunk(512);
  const VectorClock* previous = nullptr;
  for (const Ended& e : ended_) {
    if (e.rest.get() == previous) continue;
    previous = e.rest.get();
    bytes += memory::Chunk(sizeof(VectorClock) + 16) + previous->HeapBytes();
  }
  return bytes;
}

ThreadEpochs::Found ThreadEpochs::JoinEpoch(uint32_t epoch, const VectorClock& current, Lane own_lane,
                                            VectorClock* into) const {
  if (ended_.empty() || epoch > ended_.back().epoch) {
    into->Join(current);
    return Found::kCurrent;
  }
  // The epoch itself, or (older than what is kept) the oldest kept after it.
  auto it = std::lower_bound(ended_.begin(), ended_.end(), epoch,
                             [](const Ended& e, uint32_t wanted) { return e.epoch < wanted; });
  into->Join(*it->rest);
  if (it->own > into->Get(own_lane)) into->Set(own_lane, it->own);
  return it->epoch == epoch ? Found::kEnded : Found::kOlderThanKept;
}

}  // namespace streamcheck
