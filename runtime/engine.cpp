#include "runtime/engine.h"

#include "runtime/engine_impl.h"

namespace streamcheck {

Engine::Impl::Impl(FindingSink* sink, EngineOptions options)
    : options_(options), findings_(sink, options.max_distinct_findings) {}

void Engine::Impl::Process(const TraceRecord& r) {
  current_ = &r;
  if ((index_ & (kMemorySampleRecords - 1)) == 0) [[unlikely]] SampleMemory();
  ++stats_.records;
  last_device_work_ = {};
  if (!pending_pageable_.empty()) SettlePageableCopies(r);
  if (!running_host_funcs_.empty()) [[unlikely]] CallInsideHostFunc(r);
  switch (r.op) {
    case OpCode::kDefineString: symbols_.DefineString(r.id, r.text); break;
    case OpCode::kDefineStack: symbols_.DefineStack(r.id, r.frames, r.library, r.name); break;
    case OpCode::kProcessInfo:
    case OpCode::kThreadName: break;
    case OpCode::kUnmodeledApi: {
      std::string name(symbols_.String(r.api));
      ++stats_.unmodeled_apis[name.empty() ? "(unnamed)" : name];
      break;
    }
    // cudaSetDevice: what handle 0 means follows the thread's current device.
    case OpCode::kSetDevice: EnterHostCall(r).current_device = r.device < 0 ? 0 : r.device; break;
    case OpCode::kDeviceReset: DeviceReset(r); break;
    case OpCode::kStreamCreate: StreamCreate(r); break;
    case OpCode::kStreamDestroy: EnterHostCall(r); sync_.DestroyStream(r.stream); break;
    case OpCode::kEventCreate:
      EnterHostCall(r);
      sync_.Event(r.event) = EventState{};
      event_origins_.NoteCreated(r.event, SiteOf(r));
      break;
    case OpCode::kEventDestroy:
      EnterHostCall(r);
      sync_.DestroyEvent(r.event);
      event_origins_.NoteDestroyed(r.event);
      break;
    case OpCode::kEventRecord: EventRecord(r); break;
    case OpCode::kStreamWaitEvent: StreamWaitEvent(r); break;
    case OpCode::kEventSynchronize: HostWaitsForEvent(r, /*flag_unrecorded=*/true); break;
    case OpCode::kEventQuery:
      // cudaEventQuery == cudaSuccess means the captured work is complete.
      if (r.result == 0) HostWaitsForEvent(r, /*flag_unrecorded=*/false);
      else EnterHostCall(r);
      break;
    case OpCode::kStreamSynchronize: HostWaitsForStream(r); break;
    case OpCode::kStreamQuery:
      if (r.result == 0) HostWaitsForStream(r);
      else EnterHostCall(r);
      break;
    case OpCode::kDeviceSynchronize: {
      ThreadState& t = EnterHostCall(r);
      HostWaitsForDevice(t, DeviceOf(r, t));
      break;
    }
    case OpCode::kEventElapsedTime: EventElapsedTime(r); break;
    case OpCode::kMalloc: Malloc(r); break;
    case OpCode::kFree: Free(r); break;
    case OpCode::kMallocAsync: MallocAsync(r); break;
    case OpCode::kFreeAsync: FreeAsync(r); break;
    case OpCode::kPoolBlockAllocate: PoolBlockAllocate(r); break;
    case OpCode::kPoolBlockFree: PoolBlockFree(r); break;
    case OpCode::kHostRegister: HostRegister(r); break;
    case OpCode::kHostUnregister: EnterHostCall(r); allocations_.Remove(r.dst, nullptr); break;
    case OpCode::kKernelLaunch: KernelLaunch(r); break;
    case OpCode::kMemcpy: Memcpy(r); break;
    case OpCode::kMemset: Memset(r); break;
    case OpCode::kHostFunc: HostFunc(r); break;
    case OpCode::kHostAccess: HostAccess(r); break;
    case OpCode::kStreamBeginCapture: BeginCapture(r); break;
    case OpCode::kStreamEndCapture: EndCapture(r); break;
    case OpCode::kGraphCreate: EnterHostCall(r); graphs_.graph(r.graph) = Graph{}; break;
    case OpCode::kGraphAddNode: GraphAddNode(r); break;
    case OpCode::kGraphAddDependency: GraphAddDependency(r); break;
    case OpCode::kGraphInstantiate:
    case OpCode::kGraphExecUpdate: GraphInstantiate(r); break;
    case OpCode::kGraphLaunch: GraphLaunch(r); break;
    case OpCode::kGraphDestroy: EnterHostCall(r); graphs_.DestroyGraph(r.graph); break;
    case OpCode::kGraphExecDestroy: GraphExecDestroy(r); break;
    case OpCode::kHostThreadOrder: sync_.SetPerThreadClocks(r.flags == 1); break;
    case OpCode::kThreadRelease: ThreadRelease(r); break;
    case OpCode::kThreadAcquire: ThreadAcquire(r); break;
    case OpCode::kHostFuncBegin: HostFuncBegin(r); break;
    case OpCode::kHostFuncEnd: HostFuncEnd(r); break;
    case OpCode::kScopeBegin: ScopeBegin(r); break;
    case OpCode::kScopeEnd: ScopeEnd(r); break;
    case OpCode::kMpiStart: MpiStart(r); break;
    case OpCode::kMpiComplete: MpiComplete(r); break;
    case OpCode::kInvalid:
    case OpCode::kMaxOpCode: Anomaly("invalid opcode"); break;
  }
  if (r.op >= OpCode::kEventRecord && r.op <= OpCode::kDeviceSynchronize) NoteSynchronization(r);
  ++index_;
  current_ = nullptr;
}

void Engine::Impl::Prefetch(const TraceRecord& r) const {
  caller_prefetches_ = true;
  for (const MemoryAccess& a : r.accesses) shadow_.Prefetch(a.addr);
  if (r.op == OpCode::kMemcpy) shadow_.Prefetch(r.src);
  // An allocation inserts its interval at dst: a random slot too.
  if (r.op == OpCode::kMemcpy || r.op == OpCode::kMemset || r.op == OpCode::kMalloc) shadow_.Prefetch(r.dst);
}

void Engine::Impl::Finish() {
  for (const PendingPageableCopy& p : pending_pageable_) ReportPageableCopy(p.copy);
  pending_pageable_.clear();
  findings_.Flush();
  stats_.findings = findings_.distinct();
  stats_.finding_occurrences = findings_.occurrences();
  stats_.live_allocations = allocations_.size();
  stats_.shadow_intervals = shadow_.interval_count();
  stats_.lanes = lanes_.size();
  SampleMemory();
  if (sync_.implicit_streams() > 0) stats_.anomalies["stream handle used before creation"] = sync_.implicit_streams();
  if (const size_t open = scopes_.OpenCount(); open > 0) stats_.anomalies["scope still open at the end"] = open;
}

DeviceId Engine::Impl::DeviceOf(const TraceRecord& r, const ThreadState& t) const {
  return r.device >= 0 ? r.device : t.current_device;
}

// cudaStreamCreate, cudaStreamCreateWithFlags, cudaStreamCreateWithPriority.
void Engine::Impl::StreamCreate(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  const StreamState& s = sync_.CreateStream(r.stream, r.thread, DeviceOf(r, t), r.flags);
  lanes_.NoteCreated(s.lane, SiteOf(r));
}

// cudaEventRecord, cudaEventRecordWithFlags: the event captures the stream's
// work so far; re-recording replaces the capture.
void Engine::Impl::EventRecord(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  StreamState& s = sync_.Stream(r.stream, r.thread);
  EventState& e = sync_.Event(r.event);
  if (s.capture_graph != 0) {
    CaptureEventRecord(s, e);
    return;
  }
  sync_.PrepareStreamOperation(s, t);
  sync_.TickStream(s);
  e.recorded = true;
  e.clock = s.clock;
  e.capture_graph = 0;
  e.capture_nodes.clear();
}

// cudaStreamWaitEvent: the stream's later work waits for the most recent
// record before this call; an event never recorded orders nothing.
void Engine::Impl::StreamWaitEvent(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  StreamState& s = sync_.Stream(r.stream, r.thread);
  EventState& e = sync_.Event(r.event);
  if (e.capture_graph != 0) {
    CaptureEventWait(s, e);
    return;
  }
  if (!e.recorded) {
    FlagUnrecordedEvent(s.lane, r, "cudaStreamWaitEvent", "the stream waits for nothing");
    return;
  }
  sync_.PrepareStreamOperation(s, t);
  s.Learn(e.clock);
  sync_.TickStream(s);
}

void Engine::Impl::FlagUnrecordedEvent(Lane waiter, const TraceRecord& r, const char* call,
                                       const char* consequence) {
  AccessDescription wait{waiter, SiteOf(r), ShadowKind::kRead, 0, 0, index_, r.timestamp_ns};
  ReportSingle(rules::RuleId::kWaitOnUnrecordedEvent, FindingKind::kUnrecordedEventWait, wait,
               [&](std::string* message, std::string* reason) {
                 *message = std::string(call) + " on an event that was never recorded";
                 *reason = "the event had no cudaEventRecord before this call, so it returns at once and " +
                           std::string(consequence);
               });
}

// cudaEventSynchronize, and cudaEventQuery returning cudaSuccess.
void Engine::Impl::HostWaitsForEvent(const TraceRecord& r, bool flag_unrecorded) {
  ThreadState& t = EnterHostCall(r);
  auto it = sync_.events().find(r.event);
  const bool recorded = it != sync_.events().end() && it->second.recorded;
  if (!recorded) {
    if (flag_unrecorded) FlagUnrecordedEvent(t.lane, r, "cudaEventSynchronize", "the host waits for nothing");
    return;
  }
  sync_.JoinIntoThread(t, it->second.clock);
}

// cudaStreamSynchronize, and cudaStreamQuery returning cudaSuccess.
void Engine::Impl::HostWaitsForStream(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  HostWaitsForStreamState(t, sync_.Stream(r.stream, r.thread));
}

void Engine::Impl::HostWaitsForStreamState(ThreadState& t, const StreamState& s) {
  sync_.JoinIntoThread(t, s.clock);
  // Waiting for the legacy default stream (handle 0, cudaStreamLegacy) is
  // waiting for what an operation queued on it now would wait for: "The legacy
  // default stream is an implicit stream which synchronizes with all other
  // streams in the same CUcontext except for non-blocking streams" (stream
  // synchronization behavior): every blocking stream's earlier work, no
  // non-blocking stream's.
  if (s.legacy)
    for (const StreamState* b : s.device_state->blocking) sync_.JoinIntoThread(t, b->clock);
}

// cudaDeviceSynchronize (and the implicit device sync of cudaFree/cudaDeviceReset):
// every stream of the device, those destroyed with work still queued included.
void Engine::Impl::HostWaitsForDevice(ThreadState& t, DeviceId device) {
  sync_.JoinDeviceIntoThread(t, device);
}

// cudaEventElapsedTime: reading the time before the host knows the end event
// completed measures nothing (unsynchronized timing).
void Engine::Impl::EventElapsedTime(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  auto it = sync_.events().find(r.event2);
  if (it == sync_.events().end() || !it->second.recorded) return;
  bool complete = true;
  const VectorClock& ec = it->second.clock;
  for (Lane l = 0; l < ec.size(); ++l)
    if (!lanes_.IsHost(l) && ec.Get(l) > t.clock.Get(l)) complete = false;
  if (complete && r.result == 0) return;
  AccessDescription read{t.lane, SiteOf(r), ShadowKind::kRead, 0, 0, index_, r.timestamp_ns};
  ReportSingle(rules::RuleId::kUnsynchronizedTiming, FindingKind::kUnsynchronizedTiming, read,
               "cudaEventElapsedTime before the end event is known to have completed",
               "no cudaEventSynchronize on the end event (or a synchronize of its stream) came "
               "between its record and this call");
}

Engine::Engine(FindingSink* sink, EngineOptions options)
    : impl_(std::make_unique<Impl>(sink, options)) {}
Engine::~Engine() = default;
void Engine::Process(const TraceRecord& record) { impl_->Process(record); }
void Engine::Prefetch(const TraceRecord& record) const { impl_->Prefetch(record); }
void Engine::Finish() { impl_->Finish(); }
void Engine::set_stack_resolver(StackResolver* resolver) { impl_->resolver_ = resolver; }
const EngineStats& Engine::stats() const { return impl_->stats_; }
EngineMemory Engine::Memory() const { return impl_->Memory(); }
Engine::DeviceWork Engine::LastDeviceWork() const { return impl_->last_device_work_; }
bool Engine::HostThreadOrderedAfter(ThreadId thread, DeviceWork work) {
  return work.valid() && impl_->HostThreadOrderedAfter(thread, work);
}
uint32_t Engine::OpenScope(ThreadId thread) const { return impl_->OpenScope(thread); }
void Engine::ForEachFindingInScope(uint32_t scope, const ScopeFindingVisitor& visit) const {
  impl_->ForEachFindingInScope(scope, visit);
}

}  // namespace streamcheck
