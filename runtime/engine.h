// The happens-before engine: consumes TraceRecords in trace order (the order
// in which the host threads made the calls) and reports races to a FindingSink.
// It models CUDA's ordering rules; the tracer only translates calls into records.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/finding.h"
#include "runtime/trace_record.h"

namespace streamcheck {

// Turns a stack id into frames when a finding needs them. The engine's default
// uses the frames given by kDefineStack records; the live tracer plugs in a
// resolver that symbolizes raw program counters only for stacks in findings.
class StackResolver {
 public:
  virtual ~StackResolver() = default;
  virtual std::vector<ResolvedFrame> Resolve(StackId stack) = 0;
};

struct EngineOptions {
  // Report each async copy that uses pageable host memory (rule pageable-async-copy).
  bool report_pageable_async_copies = true;
  // Stop recording new distinct findings past this many (counts still grow).
  uint64_t max_distinct_findings = 100000;
  // `--forbid-default-stream[=GLOB]` (rule default-stream-use): report work
  // issued to the legacy or per-thread default stream, one finding per call
  // site; with a pattern, only work issued from the objects (the executable,
  // a shared library) whose path matches it (fnmatch(3), '*' crossing '/').
  bool forbid_default_stream = false;
  std::string default_stream_objects;
};

struct EngineStats {
  uint64_t records = 0;
  uint64_t stream_operations = 0;
  uint64_t host_operations = 0;
  uint64_t accesses_checked = 0;
  uint64_t findings = 0;             // distinct
  uint64_t finding_occurrences = 0;  // with repeats
  uint64_t live_allocations = 0;
  uint64_t shadow_intervals = 0;
  // APIs that may change ordering but that the engine does not model, by name.
  std::map<std::string, uint64_t> unmodeled_apis;
  // Records the engine could not apply (e.g. wait on an unknown stream handle), by reason.
  std::map<std::string, uint64_t> anomalies;
  // Distinct findings not reported because a side is a library's own work
  // (TraceRecord::library), by "library: rule", e.g. "nccl: wait-on-unrecorded-event".
  std::map<std::string, uint64_t> library_internal;
};

// Whether a finding can show where a record of this kind was made (its
// stack, through the engine's sites). The tracer takes no native stack for
// the others: they are many (PyTorch's wait_stream creates, records and
// destroys an event every time) and each costs the program a capture.
// Inline: the tracer asks for every record its callbacks make.
inline bool FindingsCiteStackOf(OpCode op) {
  // Records whose handlers never take their site (SiteOf): their stacks
  // appear in no finding. (RecordedTraceStacks checks this on every recorded
  // trace.) Stream and event creations are cited: reports name a stream or
  // event by the line that created it. Event records are not (PyTorch makes
  // one per wait_stream): a finding shows the records between its accesses
  // (Finding::syncs) without their stacks.
  switch (op) {
    case OpCode::kUnmodeledApi:
    case OpCode::kSetDevice:
    case OpCode::kStreamDestroy:
    case OpCode::kEventDestroy:
    case OpCode::kEventRecord:
    case OpCode::kPoolBlockFree:  // a reuse is reported at the block's next allocation
    case OpCode::kHostThreadOrder:
    case OpCode::kThreadRelease:
    case OpCode::kThreadAcquire:
    case OpCode::kHostFuncBegin:
    case OpCode::kHostFuncEnd:
    case OpCode::kScopeBegin:
    case OpCode::kScopeEnd:
    case OpCode::kMpiComplete:  // a finding names the operation's start, not its wait
      return false;
    default:
      return true;
  }
}

class Engine {
 public:
  explicit Engine(FindingSink* sink, EngineOptions options = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  void Process(const TraceRecord& record);
  // A hint that `record` comes next: starts loading the shadow memory it will
  // touch, so the cache misses of consecutive operations overlap (replay).
  // A caller that calls it once is taken to hint every record, several
  // records ahead: Process() then no longer prefetches an operation's
  // accesses itself.
  void Prefetch(const TraceRecord& record) const;
  // Flushes final occurrence counts to the sink. Call once at the end.
  void Finish();

  void set_stack_resolver(StackResolver* resolver);
  const EngineStats& stats() const;

  // For the live tracer's host guards (tracer/host/), which keep the pages
  // of host-visible memory inaccessible while device work on them is
  // pending. The device work the last processed record queued on a stream
  // (not captured into a graph), if any: its lane and its clock there.
  struct DeviceWork {
    uint32_t lane = ~uint32_t{0};
    uint32_t clock = 0;
    bool valid() const { return lane != ~uint32_t{0}; }
  };
  DeviceWork LastDeviceWork() const;
  // Whether host thread `thread` is now ordered after `work` (a
  // synchronization, a successful query or a synchronous call made it so).
  bool HostThreadOrderedAfter(ThreadId thread, DeviceWork work);

  // Per-test scopes (docs/SCOPES.md), for the live tracer's
  // streamcheck_scope_errors. The innermost scope host thread `thread`
  // works in now (its own, else the last opener's: scope_table.h); 0 when none.
  uint32_t OpenScope(ThreadId thread) const;
  // Each distinct finding reported so far (the sink's local id) whose later
  // access, or only one, was made inside `scope` or a scope nested in it
  // (every finding, for 0), with how often it occurred so far.
  using ScopeFindingVisitor = std::function<void(uint64_t local_id, uint64_t count)>;
  void ForEachFindingInScope(uint32_t scope, const ScopeFindingVisitor& visit) const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace streamcheck
