// How host threads are ordered with each other (thread_epochs.h): the ends of
// threads' epochs, the acquires that make one thread learn what others knew,
// and, for findings, whether an ordering streamcheck cannot observe could
// have separated two accesses.
#include <algorithm>

#include "runtime/engine_impl.h"

namespace streamcheck {

// The thread's clock as of now is the clock of its epoch `r.id`: it released
// something during that epoch, and its clock is about to change. Inside a
// host function, what it releases is the function's clock (its stream's
// work), not the driver thread's (engine_host_funcs.cpp; HostFuncBegin and
// HostFuncEnd bump `joins`, so no kept clock is shared across the switch).
void Engine::Impl::ThreadRelease(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  const VectorClock* run = RunningHostFunc(r.thread);
  t.epochs.End(r.id, run != nullptr ? *run : t.clock, t.lane, t.joins);
}

// The thread acquired what other threads released: it is after their epochs.
// Inside a host function, the function learns it.
void Engine::Impl::ThreadAcquire(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  VectorClock* run = RunningHostFunc(r.thread);
  VectorClock* into = run != nullptr ? run : &t.clock;
  bool learnt = false;
  for (Handle dep : r.deps) {
    const ThreadId from = ThreadOfDep(dep);
    if (from == r.thread) continue;
    // A thread this engine never had a record of: one of the parent's, in a
    // forked child. Nothing it did is in this engine to be ordered after.
    const ThreadState* source = sync_.FindThread(from);
    if (source == nullptr) continue;
    // A thread still in the epoch it released in: its clock now is that
    // epoch's (a host function's, if it released inside one).
    const VectorClock* source_run = RunningHostFunc(from);
    const VectorClock& current = source_run != nullptr ? *source_run : source->clock;
    const ThreadEpochs::Found found = source->epochs.JoinEpoch(EpochOfDep(dep), current, source->lane, into);
    if (found == ThreadEpochs::Found::kOlderThanKept)
      Anomaly("host thread order: an acquired epoch was no longer kept; ordered after a later one of that thread");
    learnt = true;
  }
  if (learnt) {
    ++t.version;
    ++t.joins;
  }
}

ThreadId Engine::Impl::ThreadAwareOf(Epoch earlier, ThreadId later_thread) const {
  if (!sync_.per_thread_clocks()) return 0;
  ThreadId aware = 0;
  for (const auto& [id, t] : sync_.threads())
    if (id != later_thread && t.clock.Covers(earlier) && (aware == 0 || id < aware)) aware = id;
  return aware;
}

}  // namespace streamcheck
