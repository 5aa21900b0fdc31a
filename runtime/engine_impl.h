// Engine internals, split by concern across engine*.cpp:
//   engine.cpp         dispatch; streams, events, host synchronization
//   engine_memory.cpp  allocation, free, kernels' accesses, copies, memsets, host accesses
//   engine_graphs.cpp  stream capture, graph construction, instantiate, launch
//   engine_report.cpp  conflicts -> findings (kind, reason, fix, fingerprint)
//   engine_host_threads.cpp  how host threads are ordered with each other
//   engine_footprint.cpp  the engine's own memory
//   engine_scopes.cpp  per-test scopes (scope_table.h)
//   engine_mpi.cpp     MPI operations' buffers, by the MPI standard
//   engine_host_funcs.cpp  host functions (stream callbacks, graph host nodes) and their runs
#pragma once

#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/allocation_table.h"
#include "runtime/engine.h"
#include "runtime/event_origins.h"
#include "runtime/finding_collector.h"
#include "runtime/function_ref.h"
#include "runtime/graph_model.h"
#include "runtime/lane_table.h"
#include "runtime/op_log.h"
#include "runtime/scope_table.h"
#include "runtime/shadow_memory.h"
#include "runtime/site_table.h"
#include "runtime/symbol_table.h"
#include "runtime/sync_history.h"
#include "runtime/sync_objects.h"

namespace streamcheck {

// One access as the report code needs it.
struct AccessDescription {
  Lane lane = kNoLane;
  uint32_t site = 0;
  ShadowKind kind = ShadowKind::kRead;
  Address address = 0;
  uint64_t size = 0;
  uint64_t trace_index = 0;
  uint64_t timestamp_ns = 0;
  Clock clock = 0;  // the access's epoch on `lane` (0 when not known)
  bool reuse = false;  // a pool block handed out again (kind kFree: its earlier tenants end here)
  bool guessed = false;  // bytes of a guessed kernel extent (ShadowAccess::guessed)
};

// Whole cache lines: in the tracer the analysis worker writes this on every
// record while the program's thread, which allocated it, writes its own heap
// objects next to it (a shared line would move between their cores).
class alignas(64) Engine::Impl {
 public:
  Impl(FindingSink* sink, EngineOptions options);
  void Process(const TraceRecord& r);
  void Prefetch(const TraceRecord& r) const;
  void Finish();
  // engine_footprint.cpp
  EngineMemory Memory() const;
  void SampleMemory();  // into stats_.memory_bytes and peak_memory_bytes
  // engine_scopes.cpp: Engine's scope queries.
  uint32_t OpenScope(ThreadId thread) const { return scopes_.Current(thread); }
  void ForEachFindingInScope(uint32_t scope, const Engine::ScopeFindingVisitor& visit) const;

  StackResolver* resolver_ = nullptr;
  EngineStats stats_;
  uint64_t index_ = 0;
  Engine::DeviceWork last_device_work_;  // of the record being processed (Engine::LastDeviceWork)
  bool HostThreadOrderedAfter(ThreadId thread, Engine::DeviceWork work) {
    return sync_.Thread(thread).clock.Get(work.lane) >= work.clock;
  }

 private:
  // engine.cpp
  ThreadState& EnterHostCall(const TraceRecord& r) {  // inline: every record makes one
    ThreadState& t = sync_.Thread(r.thread);
    sync_.SwitchToThread(t, r.thread);
    return t;
  }
  DeviceId DeviceOf(const TraceRecord& r, const ThreadState& t) const;
  void StreamCreate(const TraceRecord& r);
  void EventRecord(const TraceRecord& r);
  void StreamWaitEvent(const TraceRecord& r);
  void HostWaitsForEvent(const TraceRecord& r, bool flag_unrecorded);
  void FlagUnrecordedEvent(Lane waiter, const TraceRecord& r, const char* call, const char* consequence);
  void HostWaitsForStream(const TraceRecord& r);
  void HostWaitsForStreamState(ThreadState& t, const StreamState& s);
  void HostWaitsForDevice(ThreadState& t, DeviceId device);
  void EventElapsedTime(const TraceRecord& r);
  uint32_t SiteOf(const TraceRecord& r) {
    return sites_.Intern({r.api, r.name, r.framework_op, r.stack, r.thread, r.library, scopes_.Current(r.thread)});
  }

  // engine_memory.cpp
  void Malloc(const TraceRecord& r);
  void Free(const TraceRecord& r);
  void MallocAsync(const TraceRecord& r);
  void FreeAsync(const TraceRecord& r);
  void PoolBlockAllocate(const TraceRecord& r);
  void PoolBlockFree(const TraceRecord& r);
  // The innermost known allocation holding `addr`: a pool block, else its segment.
  const Allocation* AllocationAt(Address addr) const;
  // The allocation of `table` starting at `base`, or null (counted as an anomaly).
  const Allocation* LiveAllocationAt(const AllocationTable& table, Address base);
  void HostRegister(const TraceRecord& r);
  void DeviceReset(const TraceRecord& r);
  void KernelLaunch(const TraceRecord& r);
  void Memcpy(const TraceRecord& r);
  void Memset(const TraceRecord& r);
  void HostAccess(const TraceRecord& r);
  void SettlePageableCopies(const TraceRecord& next);
  void ReportPageableCopy(const AccessDescription& copy);
  // Runs one stream operation (or captures it as a graph node).
  // `staged_copy`: the accesses are a staged pageable copy's destination (ShadowAccess::staged_copy).
  void StreamOperation(const TraceRecord& r, StreamState& s, const std::vector<MemoryAccess>& accesses,
                       bool staged_copy = false);
  void ApplyAccesses(Lane lane, const VectorClock& clock, uint32_t site,
                     const std::vector<MemoryAccess>& accesses, uint64_t trace_index,
                     uint64_t timestamp_ns, bool staged_copy = false);
  // Checks that every earlier use of the range is ordered before the free;
  // the range then holds the free, or `reused_by` (an allocation taking the memory).
  void FreeRange(Address base, uint64_t size, Lane lane, const VectorClock& clock, uint32_t site, bool reuse,
                 uint64_t timestamp_ns, const ShadowAccess* reused_by = nullptr);
  // Accesses a copy or memset makes, from its record (2D extents included).
  // A copy's or a memset's accesses (a copy's source first) into `out`.
  static void TransferAccesses(const TraceRecord& r, std::vector<MemoryAccess>* out);

  // engine_graphs.cpp
  void BeginCapture(const TraceRecord& r);
  void EndCapture(const TraceRecord& r);
  void CaptureNode(const TraceRecord& r, StreamState& s, const std::vector<MemoryAccess>& accesses);
  void CaptureEventRecord(StreamState& s, EventState& e);
  void CaptureEventWait(StreamState& s, const EventState& e);
  void GraphAddNode(const TraceRecord& r);
  void GraphAddDependency(const TraceRecord& r);
  void GraphInstantiate(const TraceRecord& r);
  void GraphLaunch(const TraceRecord& r);
  void GraphExecDestroy(const TraceRecord& r);
  void AssignGraphLanes(GraphExec& exec, Handle exec_handle, const VectorClock& entry);
  Lane TakeRetiredGraphLane(const VectorClock& entry);

  // engine_host_threads.cpp
  void ThreadRelease(const TraceRecord& r);
  void ThreadAcquire(const TraceRecord& r);
  // A host thread other than `later_thread` whose clock covers `earlier`: had
  // that thread's knowledge reached the later access through a handover
  // streamcheck does not observe, the two would be ordered. 0 when none.
  ThreadId ThreadAwareOf(Epoch earlier, ThreadId later_thread) const;

  // engine_host_funcs.cpp
  struct HostFuncRun;
  void HostFunc(const TraceRecord& r);
  void HostFuncBegin(const TraceRecord& r);
  void HostFuncEnd(const TraceRecord& r);
  // A graph launch ran host node `id` at `lane`/`clock`: its run comes later.
  void QueueHostFuncRun(uint32_t id, Lane lane, const VectorClock& clock);
  // The clock of the host function `thread` is running, or null (the common
  // case: no host function is running anywhere, one compare).
  VectorClock* RunningHostFunc(ThreadId thread) {
    if (running_host_funcs_.empty()) [[likely]] return nullptr;
    return RunningHostFuncSlow(thread);
  }
  VectorClock* RunningHostFuncSlow(ThreadId thread);
  const HostFuncRun* RunningHostFuncRun(ThreadId thread) const;
  // A record made inside a host function that CUDA forbids there.
  void CallInsideHostFunc(const TraceRecord& r);
  std::string ExplainHostFuncOrder(const AccessDescription& earlier, const AccessDescription& later,
                                   std::string* gap);
  std::string FixHostFuncOrder(const AccessDescription& earlier, const AccessDescription& later);

  // engine_default_stream.cpp (run --forbid-default-stream): inline, the
  // common case is the option off.
  void DefaultStreamUse(const TraceRecord& r, const StreamState& s) {
    if (options_.forbid_default_stream) [[unlikely]] CheckDefaultStreamUse(r, s);
  }
  void CheckDefaultStreamUse(const TraceRecord& r, const StreamState& s);

  // engine_scopes.cpp
  void ScopeBegin(const TraceRecord& r);
  void ScopeEnd(const TraceRecord& r);

  // engine_mpi.cpp
  void MpiStart(const TraceRecord& r);
  void MpiComplete(const TraceRecord& r);
  // Why an MPI operation and the other access are not ordered, and the fix
  // (ExplainMissingOrder, FixFor), when one side is an MPI lane.
  std::string ExplainMpiOrder(const AccessDescription& earlier, const AccessDescription& later, std::string* gap);
  std::string FixMpiOrder(const AccessDescription& earlier, const AccessDescription& later);

  // engine_report.cpp
  enum class Doubt : uint8_t { kNone, kGuessedExtent, kGuessedMode, kStagedCopy };
  static Doubt DoubtOf(const ShadowAccess& earlier, const AccessDescription& later);
  void ReportConflicts(const AccessDescription& later, std::span<const ShadowConflict> conflicts);
  // True (and counted in stats_.library_internal) when a side of the
  // finding is a library's own work, or the memory at `address` is a
  // library's own allocation: not the program's to fix.
  bool LibraryInternal(const FindingKey& key, Address address);
  void CountLibraryInternal(const FindingKey& key, std::string_view library);
  StringId CallingLibrary(uint32_t site) const;
  void ReportConflict(const ShadowConflict& c, const AccessDescription& later, Doubt doubt);
  static void ExplainDoubt(Doubt doubt, Finding* f);
  // A single operation's finding, with its message and reason made only
  // when the finding is new: a repeated one is only counted (NCCL waits on
  // events it never recorded, on purpose, at every collective).
  using FindingWords = FunctionRef<void(std::string* message, std::string* reason)>;
  void ReportSingle(rules::RuleId rule, FindingKind kind, const AccessDescription& access, FindingWords words);
  void ReportSingle(rules::RuleId rule, FindingKind kind, const AccessDescription& access,
                    const std::string& message, const std::string& reason);
  // The finding of one operation, whoever's code made it (ReportSingle has
  // already asked whether it is a library's own).
  void ReportSingleOperation(const FindingKey& key, const AccessDescription& access, FindingWords words);
  // Why a finding may not be certain.
  struct Uncertainty {
    bool unknown_mode = false;     // a side's read or write is not known
    Doubt doubt = Doubt::kNone;    // DoubtOf: guessed bytes or mode, or a staged copy
    bool at_most_warning = false;  // doubtful, and no error of the same sites yet (ExplainDoubt)
    ThreadId aware_thread = 0;     // ThreadAwareOf: only unobserved host-thread order may be missing
  };
  Finding BuildFinding(rules::RuleId rule, FindingKind kind, const Uncertainty& why,
                       const AccessDescription& earlier, const AccessDescription& later);
  std::string UnobservedHandover(ThreadId aware, ThreadId later_thread) const;
  FindingAccess Describe(const AccessDescription& a, const char* role);
  // `gap`, when given, gets the reason as a code (Finding::order_gap).
  std::string ExplainMissingOrder(const AccessDescription& earlier, const AccessDescription& later,
                                  std::string* gap = nullptr);
  std::string FixFor(rules::RuleId rule, const AccessDescription& earlier,
                     const AccessDescription& later);
  std::string OpName(uint32_t site) const;
  void Anomaly(const char* what) { ++stats_.anomalies[what]; }

  // engine_context.cpp: what a report shows around a finding.
  void NoteSynchronization(const TraceRecord& r);
  void DescribeOrigins(Lane lane, FindingAccess* out) const;
  ObjectOrigin EventOrigin(Handle event) const;
  std::vector<FindingAccess> SyncsBetween(const AccessDescription& earlier, const AccessDescription& later) const;

  EngineOptions options_;
  LaneTable lanes_;
  SyncObjects sync_{&lanes_};
  ShadowMemory shadow_;
  OpLog op_log_;
  AllocationTable allocations_;
  AllocationTable pool_blocks_;  // caching-allocator blocks, inside allocations_
  // Blocks allocated while a stream was capturing: a CUDA graph's private
  // pool, whose replays the caching allocator never sees (PoolBlockAllocate).
  AddressRanges graph_memory_;
  // Pageable async copies waiting for their thread's next call (SettlePageableCopies).
  struct PendingPageableCopy {
    ThreadId thread;
    Handle stream;
    AccessDescription copy;
  };
  std::vector<PendingPageableCopy> pending_pageable_;
  // A host function's run: the lane it is on (its stream's kHostFunctions
  // lane, or a graph host node's lane) and its clock there. Launched and not
  // yet begun (kHostFunc with an id, or a graph launch of a followed host
  // node), by id, oldest first: a graph's node runs once per launch, and
  // launches of one exec run in order. Bounded in case a trace never says
  // (a program that exits with host functions queued, a CUDA that ignored
  // the tracer's trampoline).
  struct HostFuncRun {
    Lane lane = kNoLane;
    VectorClock clock;
    // Work the trace shows before the run but that runs after it (the
    // stream's later work, a graph's later nodes): per lane, the first
    // epoch that knew the run's. Its accesses do not race with the run's.
    std::vector<Epoch> known_from;
  };
  // The lane's work from `clock` on knows these runs' epochs (ApplyAccesses).
  void NoteHostFuncRunsKnown(Lane lane, const VectorClock& clock);
  bool KnownAfterRunningHostFunc(const ShadowAccess& earlier) const;
  const HostFuncRun* applying_host_func_ = nullptr;  // HostAccess of a running host function
  static constexpr size_t kMaxPendingHostFuncs = 1 << 16;
  std::unordered_map<uint32_t, std::vector<HostFuncRun>> pending_host_funcs_;
  size_t pending_host_func_runs_ = 0;
  // Begun and not ended, by the host thread running each (a driver thread).
  std::unordered_map<ThreadId, HostFuncRun> running_host_funcs_;
  // MPI operations not yet seen complete (kMpiStart id -> its lane, whose
  // clock is the operation's), and per host thread the lanes of operations
  // it saw complete, reused so that a program's millions of requests make
  // as many lanes as it ever has pending at once (engine_mpi.cpp).
  struct PendingMpiOperation {
    Lane lane = kNoLane;
    ThreadId thread = 0;
  };
  static constexpr size_t kMaxPendingMpi = 1 << 16;
  std::unordered_map<uint32_t, PendingMpiOperation> pending_mpi_;
  std::unordered_map<ThreadId, std::vector<Lane>> free_mpi_lanes_;
  std::unordered_map<Lane, VectorClock> mpi_clocks_;
  SiteTable sites_;
  SymbolTable symbols_;
  ScopeTable scopes_;
  // --forbid-default-stream=GLOB: whether each calling object's path matches.
  std::unordered_map<StringId, bool> default_stream_objects_;
  GraphModel graphs_;
  // Lanes of destroyed graph execs, each with the epoch of its last node run.
  std::vector<Epoch> retired_graph_lanes_;
  FindingCollector findings_;
  FindingCollector library_findings_{nullptr, options_.max_distinct_findings};  // counted, not reported
  EventOrigins event_origins_;
  SyncHistory sync_history_;
  // Streams currently capturing, per capture id (to end them together).
  std::unordered_map<uint64_t, std::vector<StreamState*>> capturing_;
  std::vector<ShadowConflict> conflicts_;  // scratch for the access hot path
  std::vector<MemoryAccess> transfer_;     // scratch: a copy's or memset's accesses (TransferAccesses)
  // Scratch: a copy's accesses made on its stream and on the host (Memcpy).
  std::vector<MemoryAccess> copy_on_stream_;
  std::vector<MemoryAccess> copy_on_host_;
  // Scratch for GraphLaunch: the launch's entry clock, each node's values on
  // the exec's chain lanes, the completion's there, and the running node's
  // whole clock.
  VectorClock graph_entry_clock_;
  std::vector<Clock> graph_chain_clocks_;
  std::vector<Clock> graph_completion_chains_;
  VectorClock graph_node_clock_;
  // The last certain conflict's finding and operation (ReportConflict).
  struct {
    FindingKey key{};
    uint64_t trace_index = ~uint64_t{0};
  } last_certain_;
  const TraceRecord* current_ = nullptr;
  // Set by the first Prefetch(): the caller hints every record ahead of
  // Process() (replay does), so ApplyAccesses need not prefetch again.
  mutable bool caller_prefetches_ = false;
};

}  // namespace streamcheck
