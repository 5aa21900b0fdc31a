// How host threads are ordered with each other (thread_epochs.h): the ends of
// threads' epochs, the acquires that make one thread learn what others knew,
// and, for findings, whether an ordering streamcheck cannot observe could
// have separated two accesses.
#include <algorithm>

#include "runtime/engine_impl.h"

namespace streamcheck {

// The thread's clock as of now is the clock of its epoch `r.id`: it released
// something during that epoch, and its clock is about to change.
void Engine::Impl::ThreadRelease(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  t.epochs.End(r.id, t.clock, t.lane, t.joins);
}

// The thread acquired what other threads released: it is after their epochs.
void Engine::Impl::ThreadAcquire(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  bool learnt = false;
  for (Handle dep : r.deps) {
    const ThreadId from = ThreadOfDep(dep);
    if (from == r.thread) continue;
    // A thread this engine never had a record of: one of the parent's, in a
    // forked child. Nothing it did is in this engine to be ordered after.
    const ThreadState* source = sync_.FindThread(from);
    if (source == nullptr) continue;
    const ThreadEpochs::Found found = source->epochs.JoinEpoch(EpochOfDep(dep), source->clock, source->lane, &t.clock);
    if (found == ThreadEpochs::Found::kOlderThanKept)
      Anomaly("host thread order: an acquired epoch was no longer kept; ordered after a later one of that thread");
    learnt = true;
  }
  if (learnt) {
    ++t.version;
    ++t.joins;
  }
}

// A host function (kHostFunc r.id) starts on this thread: CUDA runs it once
// the work before it on its stream has completed, so the thread is after
// that work, and whatever it passes on (a thread it creates, a mutex it
// unlocks) carries it.
void Engine::Impl::HostFuncBegin(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  auto it = pending_host_funcs_.find(r.id);
  if (it == pending_host_funcs_.end()) {
    Anomaly("host functions: one ran whose launch was not seen");
    return;
  }
  sync_.JoinIntoThread(t, it->second);
  pending_host_funcs_.erase(it);
}

ThreadId Engine::Impl::ThreadAwareOf(Epoch earlier, ThreadId later_thread) const {
  if (!sync_.per_thread_clocks()) return 0;
  ThreadId aware = 0;
  for (const auto& [id, t] : sync_.threads())
    if (id != later_thread && t.clock.Covers(earlier) && (aware == 0 || id < aware)) aware = id;
  return aware;
}

}  // namespace streamcheck
