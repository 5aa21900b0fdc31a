// Host functions: cudaLaunchHostFunc, cudaStreamAddCallback, cuLaunchHostFunc,
// and graph host nodes (cudaGraphAddHostNode, a cudaLaunchHostFunc captured
// into a graph), by the CUDA programming guide, "Host Functions (Callbacks)":
// a host function runs once the work before it on its stream has completed,
// the stream's later work waits for it to return, the host functions of one
// stream run in the stream's order and those of different streams in no
// order, and a host function must not make CUDA calls.
//
// CUDA runs them all on a thread of the driver's. Were that thread's clock
// the functions' clock, each function would learn every earlier one's
// stream, and two functions of two streams writing the same host memory
// would look ordered. So each run has a clock of its own, on a lane of its
// own: a stream's host functions share the stream's kHostFunctions lane
// (they run in the stream's order, so one lane per stream is exact and
// bounded), a graph host node runs on its node's lane. The epoch is taken
// where the function is launched (kHostFunc; a graph launch), with the
// stream's clock there; the stream learns it, so its later work is after the
// function's end. The tracer's trampoline (tracer/api_calls/host_func_trampoline.h)
// says where the function runs (kHostFuncBegin ... kHostFuncEnd on the
// driver's thread); what that thread does in between is the function's:
// host accesses (guard pages' faults) are on the function's lane and clock,
// a lock it releases or a thread it creates passes on the function's clock,
// a lock it acquires is learnt by the function. The driver thread learns
// the function's clock only at its end (HostFuncEnd), and no function's
// clock learns the driver thread's. docs/internals/engine.md, "Host functions".
#include <algorithm>

#include "runtime/engine_impl.h"
#include "runtime/hex.h"

namespace streamcheck {

namespace {
constexpr const char* kGuide =
    " (CUDA programming guide, \"Host Functions (Callbacks)\": the host functions of one stream run in its "
    "order, those of different streams in no order; work after a host function in its stream waits for it)";
}  // namespace

// cudaLaunchHostFunc, cudaStreamAddCallback, cuLaunchHostFunc: a stream
// operation, and, when the tracer follows its run (r.id != 0), the epoch of
// that run on the stream's host-function lane.
void Engine::Impl::HostFunc(const TraceRecord& r) {
  EnterHostCall(r);
  StreamState& s = sync_.Stream(r.stream, r.thread);
  DefaultStreamUse(r, s);
  StreamOperation(r, s, {});  // in a capture: a graph node, keeping r.id (CaptureNode)
  if (r.id == 0 || s.capture_graph != 0) return;
  if (s.host_func_lane == kNoLane) {
    LaneInfo info;
    info.kind = LaneKind::kHostFunctions;
    info.handle = s.handle;
    info.device = s.device;
    info.flags = s.blocking ? 0 : kStreamNonBlocking;
    s.host_func_lane = sync_.NewLane(info);
  }
  // The stream's clock holds its previous host function's epoch: this one
  // is after it, and after the stream's work before it.
  VectorClock clock = s.clock;
  const Clock c = clock.Get(s.host_func_lane) + 1;
  clock.Set(s.host_func_lane, c);
  lanes_.NoteOperation(s.host_func_lane, SiteOf(r));
  QueueHostFuncRun(r.id, s.host_func_lane, clock);
  s.LearnEntry(s.host_func_lane, c);  // the stream's later work waits for the function
}

void Engine::Impl::QueueHostFuncRun(uint32_t id, Lane lane, const VectorClock& clock) {
  if (pending_host_func_runs_ >= kMaxPendingHostFuncs) {
    Anomaly("host functions: too many launched and not yet run; one more is not followed");
    return;
  }
  pending_host_funcs_[id].push_back({lane, clock, {}});
  ++pending_host_func_runs_;
}

// The function's run starts on this (driver) thread: the oldest launch of
// `r.id` not yet run is the one running.
void Engine::Impl::HostFuncBegin(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  auto it = pending_host_funcs_.find(r.id);
  if (it == pending_host_funcs_.end()) {
    Anomaly("host functions: one ran whose launch was not seen");
    return;
  }
  if (running_host_funcs_.count(r.thread) != 0) Anomaly("host functions: one began inside another");
  HostFuncRun run = std::move(it->second.front());
  it->second.erase(it->second.begin());
  if (it->second.empty()) pending_host_funcs_.erase(it);
  --pending_host_func_runs_;
  // A trace that does not say how its host threads synchronize orders them
  // in trace order (SyncObjects::SwitchToThread): there the function knows
  // what the host knows, and the host learns what the function knew.
  if (!sync_.per_thread_clocks()) {
    run.clock.Join(t.clock);
    sync_.JoinIntoThread(t, run.clock);
  }
  ++t.joins;  // no epoch kept before this point shares a clock with the function's (ThreadRelease)
  running_host_funcs_[r.thread] = std::move(run);
}

// The driver thread then knows what the function knew: what it releases
// outside any host function passes that on. A tracer that ends an epoch at
// kHostFuncEnd (ChangesThreadClock) has already kept the function's own
// clock for a release inside it; traces recorded before it did end such an
// epoch only after kHostFuncEnd, and this keeps their releases as ordering
// as they were. The functions' own accesses stay on their own clocks.
void Engine::Impl::HostFuncEnd(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  auto it = running_host_funcs_.find(r.thread);
  if (it == running_host_funcs_.end()) return;
  sync_.JoinIntoThread(t, it->second.clock);
  running_host_funcs_.erase(it);
}

VectorClock* Engine::Impl::RunningHostFuncSlow(ThreadId thread) {
  auto it = running_host_funcs_.find(thread);
  return it == running_host_funcs_.end() ? nullptr : &it->second.clock;
}

const Engine::Impl::HostFuncRun* Engine::Impl::RunningHostFuncRun(ThreadId thread) const {
  auto it = running_host_funcs_.find(thread);
  return it == running_host_funcs_.end() ? nullptr : &it->second;
}

// The trace shows a run where the driver runs it, after work that runs after
// it (what follows it on its stream, or in its graph, enqueued before it
// ran): that work's accesses reach the shadow first and must not be taken
// for races with the run's. Each lane's first access that knew a run's
// epoch marks the lane as after the run from there on. Called only while
// runs are pending or running; the lanes noted per run are bounded.
void Engine::Impl::NoteHostFuncRunsKnown(Lane lane, const VectorClock& clock) {
  constexpr size_t kMaxKnownLanes = 64;
  auto note = [&](HostFuncRun& run) {
    const Clock epoch = run.clock.Get(run.lane);
    if (clock.Get(run.lane) < epoch || (lane == run.lane && clock.Get(lane) == epoch)) return;
    for (const Epoch& e : run.known_from)
      if (e.lane == lane) return;
    if (run.known_from.size() < kMaxKnownLanes) run.known_from.push_back({lane, clock.Get(lane)});
  };
  for (auto& [id, runs] : pending_host_funcs_)
    for (HostFuncRun& run : runs) note(run);
  for (auto& [thread, run] : running_host_funcs_) note(run);
}

bool Engine::Impl::KnownAfterRunningHostFunc(const ShadowAccess& earlier) const {
  for (const Epoch& e : applying_host_func_->known_from)
    if (e.lane == earlier.lane && earlier.clock >= e.clock) return true;
  return false;
}

// Host functions must not make CUDA calls (a deadlock, or
// cudaErrorNotPermitted). One that does is counted; its call is modeled as
// the driver thread's, which orders nothing the function did.
void Engine::Impl::CallInsideHostFunc(const TraceRecord& r) {
  switch (r.op) {
    case OpCode::kDefineString:
    case OpCode::kDefineStack:
    case OpCode::kThreadName:
    case OpCode::kHostAccess:
    case OpCode::kThreadRelease:
    case OpCode::kThreadAcquire:
    case OpCode::kHostFuncBegin:
    case OpCode::kHostFuncEnd:
    case OpCode::kScopeBegin:
    case OpCode::kScopeEnd:
    case OpCode::kUnmodeledApi:
      return;
    default:
      if (running_host_funcs_.count(r.thread) != 0)
        Anomaly("host functions: a CUDA call made inside a host function (the CUDA programming guide forbids it)");
  }
}

std::string Engine::Impl::ExplainHostFuncOrder(const AccessDescription& earlier, const AccessDescription& later,
                                               std::string* gap) {
  const LaneInfo& a = lanes_.Get(earlier.lane);
  const LaneInfo& b = lanes_.Get(later.lane);
  const std::string an = lanes_.Describe(earlier.lane), bn = lanes_.Describe(later.lane);
  const std::string aop = OpName(earlier.site), bop = OpName(later.site);
  if (a.IsHostFunction() && b.IsHostFunction()) {
    *gap = "host-functions-not-ordered";
    return "the host functions run on a driver thread, one after another, but nothing orders the one that made " +
           aop + " (one of the " + an + ") before the one that made " + bop + " (one of the " + bn +
           "): no event recorded on stream " + Hex(a.handle) + " after it was waited on by stream " +
           Hex(b.handle) + " before the later one was launched" + kGuide;
  }
  if (b.kind == LaneKind::kHostThread) {
    *gap = "host-not-synchronized";
    return "host thread " + std::to_string(b.thread) + " did not wait for the host function that made " + aop +
           " (one of the " + an + "): no cudaStreamSynchronize of stream " + Hex(a.handle) +
           ", cudaEventSynchronize on an event recorded after it, cudaDeviceSynchronize, or lock released by "
           "the function came between them" + kGuide;
  }
  if (a.IsHostFunction()) {
    *gap = "no-event-wait";
    return "nothing orders the host function that made " + aop + " (one of the " + an + ") before " + bop +
           " on " + bn + ": no event recorded on stream " + Hex(a.handle) + " after the function was waited on by " +
           bn + kGuide;
  }
  *gap = "no-event-wait";
  return "the host function that made " + bop + " (one of the " + bn + ") runs once the work before it on stream " +
         Hex(b.handle) + " is done, and nothing orders " + aop + " on " + an + " before that point: no event "
         "recorded after it was waited on by stream " + Hex(b.handle) + " before the function was launched" + kGuide;
}

std::string Engine::Impl::FixHostFuncOrder(const AccessDescription& earlier, const AccessDescription& later) {
  const LaneInfo& a = lanes_.Get(earlier.lane);
  const LaneInfo& b = lanes_.Get(later.lane);
  const std::string aop = OpName(earlier.site);
  if (a.IsHostFunction() && b.kind == LaneKind::kHostThread)
    return "synchronize with stream " + Hex(a.handle) + " (cudaStreamSynchronize, or cudaEventSynchronize on an "
           "event recorded after the host function's launch) before the host touches the memory, or hand it "
           "over under a mutex the function releases";
  if (a.IsHostFunction())
    return "record an event on stream " + Hex(a.handle) + " after the host function's launch (cudaEventRecord, "
           "from the launching thread: a host function must not call CUDA) and make " +
           (b.IsHostFunction() ? "stream " + Hex(b.handle) : lanes_.Describe(later.lane)) +
           " wait on it (cudaStreamWaitEvent) before the later work is launched; or launch both host functions "
           "on one stream";
  return "record an event on " + lanes_.Describe(earlier.lane) + " after " + aop + " and make stream " +
         Hex(b.handle) + " wait on it (cudaStreamWaitEvent) before launching the host function";
}

}  // namespace streamcheck
