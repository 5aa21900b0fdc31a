// The order of the program's host threads: what the preloaded library's
// interposers observe (tracer/preload/thread_order.h), turned into records
// for the engine (runtime/thread_epochs.h). Without the library (a program
// not started by `streamcheck run`) the trace does not say how its threads
// synchronize, and the engine keeps trace order between them.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/thread_epochs.h"
#include "runtime/trace_record.h"
#include "tracer/preload/thread_order.h"

namespace streamcheck::tracer {

class HostThreadOrder {
 public:
  // Finds the preloaded library and starts it observing; false without it.
  // rebind_sync_calls: the ignored libraries' calls to the synchronization
  // functions go straight to libc's (sync_call_rebinding.h).
  bool Start(bool rebind_sync_calls = true);
  // Leaves out the synchronization inside the CUDA driver, CUPTI, the CUDA
  // runtime (shared, or linked statically into any object:
  // static_cuda_runtime.h), the tracer and its plugins (their internal locks
  // order nothing the program relies on): called again once plugins are
  // loaded.
  void IgnoreCudaAndOwnCode();
  // Brackets a traced CUDA runtime call on the calling thread: what it
  // synchronizes meanwhile is the runtime's (tracer/preload/interpose.c).
  void SetInsideRuntimeCall(bool inside) {
    if (on_) api_->self()->in_cuda_call = inside ? 1 : 0;
  }
  bool on() const { return on_; }
  // The thread's first traced call: its place in the clocks, or null when it
  // has none (too many threads): then GiveUp().
  streamcheck_thread_order* Name(ThreadId id);
  // The state of a thread named before, for a thread whose tracer state was
  // made anew after its thread-locals' destructors ran (thread_state.h).
  streamcheck_thread_order* Named(ThreadId id) const {
    if (!on_) return nullptr;
    streamcheck_thread_order* order = api_->self();
    return order->id == id ? order : nullptr;
  }
  // Back to trace order for the rest of the process: the library stops.
  void GiveUp();
  // The records that must precede `r`, a record of the thread whose state is
  // `order`: the end of its epoch, what it acquired. Inline: every record
  // asks, and almost always the answer is none.
  template <typename Submit>
  void Before(streamcheck_thread_order& order, const TraceRecord& r, Submit&& submit) {
    if (!order.acquired && !(order.released && ChangesThreadClock(r))) [[likely]]
      return;
    Take(order, r, submit);
  }
  uint64_t objects_beyond_table() const { return api_ ? api_->overflowed() : 0; }
  // GOT entries of ignored libraries bound straight to libc's functions.
  int rebound_calls() const { return rebound_calls_; }
  // The record that tells the engine how host threads are ordered.
  TraceRecord ModeRecord() const;

  // The records for what streamcheck_thread_order_take() found before
  // `before`, a record of the same thread.
  template <typename Submit>
  static void OrderingRecords(int found, uint32_t ended_epoch, const uint64_t* deps, int ndeps,
                              const TraceRecord& before, Submit&& submit) {
    TraceRecord out;
    out.thread = before.thread;
    out.timestamp_ns = before.timestamp_ns;
    if (found & STREAMCHECK_ORDER_ENDED_EPOCH) {
      out.op = OpCode::kThreadRelease;
      out.id = ended_epoch;
      submit(out);
    }
    if (found & STREAMCHECK_ORDER_ACQUIRED) {
      out.op = OpCode::kThreadAcquire;
      out.id = 0;
      out.deps.assign(deps, deps + ndeps);
      submit(out);
    }
  }

 private:
  template <typename Submit>
  void Take(streamcheck_thread_order& order, const TraceRecord& r, Submit& submit) {
    uint32_t ended = 0;
    int ndeps = 0;
    const int found = api_->take(&order, ChangesThreadClock(r), &ended, deps_, &ndeps);
    OrderingRecords(found, ended, deps_, ndeps, r, submit);
  }

  const streamcheck_thread_order_api* api_ = nullptr;
  bool on_ = false;
  bool rebind_ = true;
  int rebound_calls_ = 0;
  std::vector<const void*> scanned_;  // objects whose symbols IgnoreCudaAndOwnCode read
  std::vector<const void*> rebound_objects_;  // ignored objects whose imports it bound (sync_call_rebinding.h)
  uint64_t deps_[STREAMCHECK_ORDERED_THREADS];
};

}  // namespace streamcheck::tracer
