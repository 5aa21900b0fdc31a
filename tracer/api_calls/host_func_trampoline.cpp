#include "tracer/api_calls/host_func_trampoline.h"

#include <array>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include "tracer/api_calls/cuda_call_params.h"
#include "tracer/api_calls/graph_host_nodes.h"
#include "tracer/host/host_guards.h"
#include "tracer/thread_state.h"

namespace streamcheck::tracer {
namespace {

// One followed host function, from its launch until it has run.
struct HostFuncRun {
  CUhostFn fn = nullptr;                // cuLaunchHostFunc's
  CUstreamCallback callback = nullptr;  // cuStreamAddCallback's
  void* data = nullptr;
  Tracer* tracer = nullptr;  // the one that traced the launch
  uint32_t id = 0;
  // The trampoline may start before the launching thread's exit callback
  // has emitted kHostFunc: it waits for this, so the engine sees the launch
  // first. (A launch that failed never runs: its context goes straight back.)
  std::atomic<bool> issued{false};
};

// Bounded: a context lives from a launch until its function has run (or the
// launch failed). Host functions queued faster than they run beyond this,
// or contexts never taken back because CUDA ignored the substitution, make
// later launches go unfollowed.
constexpr size_t kMaxInFlight = 4096;

class RunPool {
 public:
  HostFuncRun* Take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) {
      if (used_ == runs_.size()) return nullptr;
      free_.push_back(&runs_[used_++]);
    }
    HostFuncRun* run = free_.back();
    free_.pop_back();
    run->issued.store(false, std::memory_order_relaxed);
    run->id = next_id_++;
    if (next_id_ == kGraphHostNodeIdBit) next_id_ = 1;  // graph host nodes' ids are above
    return run;
  }
  void Give(HostFuncRun* run) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(run);
  }

 private:
  std::mutex mutex_;
  std::array<HostFuncRun, kMaxInFlight> runs_;
  size_t used_ = 0;
  std::vector<HostFuncRun*> free_;
  uint32_t next_id_ = 1;
};

RunPool& Pool() {
  static RunPool* pool = new RunPool;  // never destroyed: callbacks may run during exit
  return *pool;
}

// Waits (briefly: the launching call is returning) for the launch's record.
bool AwaitIssued(const HostFuncRun& run) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (;;) {
    if (run.issued.load(std::memory_order_acquire)) return true;
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

template <typename Call>
void Run(HostFuncRun* run, Call&& call_program) {
  const bool issued = AwaitIssued(*run);
  if (issued) EmitHostFuncRunRecord(run->tracer, OpCode::kHostFuncBegin, run->id);
  call_program(*run);
  if (issued) EmitHostFuncRunRecord(run->tracer, OpCode::kHostFuncEnd, run->id);
  Pool().Give(run);
}

void CUDA_CB HostFnTrampoline(void* data) {
  Run(static_cast<HostFuncRun*>(data), [](const HostFuncRun& run) { run.fn(run.data); });
}

void CUDA_CB StreamCallbackTrampoline(CUstream stream, CUresult status, void* data) {
  Run(static_cast<HostFuncRun*>(data),
      [&](const HostFuncRun& run) { run.callback(stream, status, run.data); });
}

// A host function launched into a stream capture becomes a graph node, run
// at every launch of the graph: followed as one (graph_host_nodes.h), its
// context the node's. Not knowing counts as capturing.
bool MayBeCapturing(CUstream stream) {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  return cuStreamIsCapturing(stream, &status) != CUDA_SUCCESS || status != CU_STREAM_CAPTURE_STATUS_NONE;
}

// Between a host-function launch's entry and exit on this thread.
thread_local bool t_launching_host_func = false;

// A host-function launch begins on this thread: nothing of it followed yet.
void BeginHostFuncLaunch() {
  ThisThread().host_func_run = nullptr;
  t_launching_host_func = true;
}

}  // namespace

void FollowHostFuncAtEntry(const ApiCall&, ApiCallbackId cbid) {
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_ptsz_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamAddCallback_v5000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamAddCallback_ptsz_v7000:
      return BeginHostFuncLaunch();
    default:
      return;  // every other runtime call: nothing to do
  }
}

void FollowHostFuncAtDriverEntry(const ApiCall& c, ApiCallbackId cbid) {
  if (!t_launching_host_func) return;
  ThreadState& thread = ThisThread();
  if (thread.host_func_run != nullptr) return;  // one host function per runtime call
  // Swaps the driver call's function and data (`function`, `data`: fields of
  // its parameter struct, which is the call's own though CUPTI hands it as
  // const) for the trampoline and a context holding them.
  auto follow = [&](auto& function, void*& data, CUstream stream, auto trampoline, auto HostFuncRun::*kept) {
    if (function == nullptr) return;
    if (MayBeCapturing(stream)) {
      if constexpr (std::is_same_v<std::remove_reference_t<decltype(function)>, CUhostFn>)
        FollowCapturedHostFunc(c.tracer, function, data);  // cuStreamAddCallback cannot be captured
      return;
    }
    HostFuncRun* run = Pool().Take();
    if (run == nullptr) return;
    run->tracer = &c.tracer;
    run->fn = nullptr;
    run->callback = nullptr;
    run->*kept = function;
    run->data = data;
    function = trampoline;
    data = run;
    thread.host_func_run = run;
  };
  // The _ptsz structs are laid out as the plain ones.
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz: {
      auto& p = const_cast<cuLaunchHostFunc_params&>(c.params<cuLaunchHostFunc_params>());
      follow(p.fn, p.userData, p.hStream, &HostFnTrampoline, &HostFuncRun::fn);
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamAddCallback:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamAddCallback_ptsz: {
      auto& p = const_cast<cuStreamAddCallback_params&>(c.params<cuStreamAddCallback_params>());
      follow(p.callback, p.userData, p.hStream, &StreamCallbackTrampoline, &HostFuncRun::callback);
      return;
    }
    default:
      return;
  }
}

void FollowDirectHostFuncAtEntry(const ApiCall& c, ApiCallbackId cbid) {
  BeginHostFuncLaunch();
  FollowHostFuncAtDriverEntry(c, cbid);
}

uint32_t HostFuncIdOfThisCall() {
  const auto* run = static_cast<const HostFuncRun*>(ThisThread().host_func_run);
  return run != nullptr ? run->id : GraphHostNodeIdOfThisCall();
}

void EmitHostFuncRunRecord(Tracer* t, OpCode op, uint32_t id) {
  if (t == nullptr || !t->OwnsThisProcess()) return;
  // Between the two records the thread runs the program's function: a guard
  // fault there is the program's access, though the trampoline (the
  // tracer's code) is on the stack (host_guards.cpp, OriginOfFault).
  int& running = ThisThread().followed_host_functions;
  if (op == OpCode::kHostFuncEnd && running > 0 && --running == 0)
    if (host::HostGuards* guards = t->host_guards()) guards->AfterFollowedHostFunction();
  GuardInternalErrors("a host function's run", [&] {
    std::lock_guard<TracerLock> lock(t->tracer_lock());
    TraceRecord r;
    r.op = op;
    r.id = id;
    t->Emit(r);
  });
  if (op == OpCode::kHostFuncBegin) ++running;
}

namespace {

// The runtime launch is over on this thread: the run it made (null when it
// made none), which the thread no longer holds.
HostFuncRun* EndHostFuncLaunch() {
  t_launching_host_func = false;
  ThreadState& thread = ThisThread();
  auto* run = static_cast<HostFuncRun*>(thread.host_func_run);
  thread.host_func_run = nullptr;
  return run;
}

}  // namespace

void HostFuncIssued() {
  if (HostFuncRun* run = EndHostFuncLaunch()) run->issued.store(true, std::memory_order_release);
  EndGraphHostNodeCall(nullptr);  // one captured: its node's context is kept
}

// A launch that failed queued nothing: its function will not run, so its
// context goes back now (the trampoline never sees it).
void HostFuncNotLaunched() {
  if (HostFuncRun* run = EndHostFuncLaunch()) Pool().Give(run);
  GraphHostNodeCallFailed();
}

}  // namespace streamcheck::tracer
