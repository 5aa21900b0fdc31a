// Engine internals, split by concern across engine*.cpp:
//   engine.cpp         dispatch; streams, events, host synchronization
//   engine_memory.cpp  allocation, free, kernels' accesses, copies, memsets, host accesses
//   engine_graphs.cpp  stream capture, graph construction, instantiate, launch
//   engine_report.cpp  conflicts -> findings (kind, reason, fix, fingerprint)
//   engine_host_threads.cpp  how host threads are ordered with each other
//   engine_scopes.cpp  per-test scopes (scope_table.h)
//   engine_mpi.cpp     MPI operations' buffers, by the MPI standard
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/allocation_table.h"
#include "runtime/engine.h"
#include "runtime/event_origins.h"
#include "runtime/finding_collector.h"
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
  void HostFunc(const TraceRecord& r);
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
  static std::vector<MemoryAccess> TransferAccesses(const TraceRecord& r);

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
  void AssignGraphLanes(GraphExec& exec, Handle exec_handle);

  // engine_host_threads.cpp
  void ThreadRelease(const TraceRecord& r);
  void ThreadAcquire(const TraceRecord& r);
  void HostFuncBegin(const TraceRecord& r);
  // A host thread other than `later_thread` whose clock covers `earlier`: had
  // that thread's knowledge reached the later access through a handover
  // streamcheck does not observe, the two would be ordered. 0 when none.
  ThreadId ThreadAwareOf(Epoch earlier, ThreadId later_thread) const;

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
  void ReportConflicts(const AccessDescription& later);
  // True (and counted in stats_.library_internal) when a side of the
  // finding is a library's own work, or the memory at `address` is a
  // library's own allocation: not the program's to fix.
  bool LibraryInternal(const FindingKey& key, Address address);
  void CountLibraryInternal(const FindingKey& key, std::string_view library);
  StringId CallingLibrary(uint32_t site) const;
  void ReportConflict(const ShadowConflict& c, const AccessDescription& later, Doubt doubt);
  static void ExplainDoubt(Doubt doubt, Finding* f);
  void ReportSingle(rules::RuleId rule, FindingKind kind, const AccessDescription& access,
                    const std::string& message, const std::string& reason);
  // The finding of one operation, whoever's code made it (ReportSingle has
  // already asked whether it is a library's own).
  void ReportSingleOperation(const FindingKey& key, const AccessDescription& access, const std::string& message,
                             const std::string& reason);
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
  // Observed host functions not yet run (kHostFunc with an id): the clock of
  // their place in stream order, which the thread that runs one joins
  // (kHostFuncBegin). Each runs once, so its entry goes then; bounded in case
  // a trace never says (a program that exits with host functions queued).
  static constexpr size_t kMaxPendingHostFuncs = 1 << 16;
  std::unordered_map<uint32_t, VectorClock> pending_host_funcs_;
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
  FindingCollector findings_;
  FindingCollector library_findings_{nullptr, options_.max_distinct_findings};  // counted, not reported
  EventOrigins event_origins_;
  SyncHistory sync_history_;
  // Streams currently capturing, per capture id (to end them together).
  std::unordered_map<uint64_t, std::vector<StreamState*>> capturing_;
  std::vector<ShadowConflict> conflicts_;  // scratch for the access hot path
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
