// The tracer's state inside the traced process: interned strings and stacks,
// the live engine, the findings store and the optional trace file. The CUPTI
// callbacks (cupti_callbacks.cpp) build TraceRecords and hand them to Emit()
// under one lock (tracer_lock.h), because CUDA calls arrive from any host
// thread and the engine needs them in one order. On the analysis worker's thread
// (analysis_worker.h) the records are completed (a launch's argument words
// matched against the allocations: record_resolver.h), then the engine, the
// store and the trace file take them.
#pragma once

#include <array>
#include <atomic>
#include <exception>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "runtime/engine.h"
#include "runtime/trace/trace_io.h"
#include "store/run_session.h"
#include "tracer/analysis_worker.h"
#include "tracer/device_accesses.h"
#include "tracer/frameworks/framework_hooks.h"
#include "tracer/host_threads/host_clock.h"
#include "tracer/host_threads/host_thread_order.h"
#include "tracer/stacks/host_stacks.h"
#include "tracer/kernel_access/kernel_arguments.h"
#include "tracer/record_resolver.h"
#include "tracer/scopes/scope_findings.h"
#include "tracer/tracer_lock.h"
#include "tracer/debug/tracer_profile.h"

namespace streamcheck::tracer {

namespace host {
class HostGuards;
}

// Where the outputs go; read from the environment `streamcheck run` sets.
struct TracerConfig {
  std::string db_path;          // STREAMCHECK_DB
  int64_t run_id = -1;          // STREAMCHECK_RUN_ID
  std::string trace_path;       // STREAMCHECK_TRACE (this process: pid-suffixed unless the root)
  std::string suppressions;     // STREAMCHECK_SUPPRESSIONS
  bool capture_stacks = true;   // STREAMCHECK_STACKS=0 turns them off
  // STREAMCHECK_DEBUG=inline-analysis: the engine runs inside each callback
  // instead of on the worker (to measure what the worker saves).
  bool analysis_worker = true;
  // For measuring what queuing and analysis cost the program (nothing is
  // found with either off): STREAMCHECK_DEBUG=drop-records makes each record
  // and drops it; =skip-analysis queues it and the worker only takes it off.
  bool queue_records = true;
  bool analyse_records = true;
  // STREAMCHECK_HOST_GUARDS=0 (`streamcheck run --no-host-guards`): no guard
  // pages, so no host accesses observed (tracer/host/host_guards.h).
  bool host_guards = true;
  // STREAMCHECK_FORBID_DEFAULT_STREAM (`run --forbid-default-stream[=GLOB]`,
  // rule default-stream-use): on, and the objects whose work counts ("" every
  // object's; the variable's "*" is that too).
  bool forbid_default_stream = false;
  std::string default_stream_objects;
  static TracerConfig FromEnvironment();
};

class Tracer : public StackResolver {
 public:
  explicit Tracer(TracerConfig config);
  ~Tracer() override;

  TracerLock& tracer_lock() { return lock_; }
  // The host accesses' guard pages, once started (injection.cpp); they see
  // every record before it is queued and after it is analysed.
  void set_host_guards(host::HostGuards* guards) { host_guards_ = guards; }
  host::HostGuards* host_guards() const { return host_guards_; }
  const TracerConfig& config() const { return config_; }
  // All below: call with tracer_lock() held.
  StringId Intern(std::string_view text);
  // For strings that live as long as the process (CUPTI's API names): cached by address.
  StringId InternStatic(const char* text);
  ThreadId CurrentThread();
  // Fills thread, stack and timestamp, then queues the record for the engine
  // and the trace.
  void Emit(TraceRecord& record);
  void CountUnmodeled(std::string_view api);
  // A framework plugin's stack (Python frames), defined once per call.
  StackId AddFrameworkStack(const StreamcheckFrame* frames, size_t count);
  // Per-test scopes (tracer/scopes/, docs/SCOPES.md), from the preloaded
  // library's hooks on the program's thread, without tracer_lock() held.
  // The thread opens scope `name`, or closes its innermost (with none open,
  // an anomaly the engine counts).
  void ScopeBegin(const char* name);
  void ScopeEnd();
  // streamcheck_scope_errors: waits for the analysis to reach this point,
  // then the new error findings of the thread's innermost scope.
  long ScopeErrors(char* text, size_t size);
  // A caching-allocator block changed hands (framework_hooks.h).
  void PoolBlock(StreamcheckBlockEvent event, Address address, uint64_t size, Handle stream, int device,
                 StackId stack);
  // Where every allocation so far lies: launches keep the argument words
  // inside it for the analysis worker to match (kernel_arguments.h).
  const AddressSpan& address_span() const { return address_span_; }
  TracerProfile& profile() { return profile_; }
  HostThreadOrder& host_thread_order() { return host_order_; }
  // The precise front-end, which completes launches with a device_access_ticket.
  // Set once, before the first callback.
  void set_device_accesses(DeviceAccessSource* source) { device_accesses_ = source; }
  // Flushes the trace, the final counts and the run summary. Idempotent.
  void Finish();
  // fork(), with tracer_lock() held: the worker analyses what is queued and stops
  // between two records, so the child's copy of the engine, store, trace and
  // picture of memory is consistent and up to date.
  void PauseAnalysis();
  void ResumeAnalysis();  // in the parent
  // In a forked child: the parent's database connection and trace file are
  // not ours; open our own and start a fresh engine (and worker).
  void RestartAfterFork();
  // False in a vfork() child, which runs on this process's memory while the
  // parent waits: it must leave the tracer alone.
  bool OwnsThisProcess() const;
  // Async-signal context: lets the worker analyse what is queued (for a
  // while: the crashing thread may hold what it needs), then writes what the
  // trace writer buffered.
  void SaveForCrash();
  // Without tracer_lock() held: after a call that made the host wait for the
  // device (a synchronization, cudaFree, a synchronous copy), waits until the
  // worker has analysed it, so findings up to here are on disk even if the
  // program ends with _exit().
  void AwaitHostSynchronizationAnalysis();
  // How often AwaitHostSynchronizationAnalysis waited (tests, the summary).
  uint64_t sync_waits() const { return sync_waits_.load(std::memory_order_relaxed); }
  // Without tracer_lock() held: waits until the worker has analysed every
  // record queued so far (the precise front-end, before a context's memory goes).
  void AwaitAnalysis();

  // What the tracer's own tables hold on the heap (interned strings, host
  // stacks and their symbols, each stack's library), estimated as the
  // engine's are (runtime/memory_estimate.h). Under tracer_lock().
  size_t TableHeapBytes();

  // On the worker thread: symbolizes a stack for a finding.
  std::vector<ResolvedFrame> Resolve(StackId stack) override { return stacks_.Symbolize(stack); }

 private:
  StringId NoteCallingLibrary(StackId stack);
  // The scopes the thread opened before the tracer met it, for a fresh
  // engine (its first record, or a forked child's first).
  void EmitOpenScopes(ThreadId thread);
  // A scope record of the calling thread (not a CUDA call: no stack, no
  // framework op, nothing guarded).
  void EmitScopeMark(TraceRecord& r);
  void OpenOutputs();
  void StartWorker();
  void WriteSymbolizedStacks();
  // What the program waited for the worker (category "analysis"), for the summary.
  void AddAnalysisCounters();
  // To the worker, or analysed here when there is none (records and
  // definitions alike: a definition reaches the engine before its uses).
  void Submit(TraceRecord& record);
  // Engine and trace file: on the worker thread (or inline).
  void Analyze(TraceRecord& record);

  // The members fall in three groups, each on cache lines of its own: one
  // read on both sides and written only at start, fork and exit; one the
  // program's threads write under lock_ for every record; one the analysis
  // worker writes for every record. A line holding what one side writes and
  // what the other reads moves between their cores at each turn, a miss of
  // some 100 ns on the program's thread: the lock word once shared a line
  // with the config flag the worker reads per record, and the profile switch
  // that every measuring point reads shared one with the worker's scratch.

  // Read on both sides, written at start and after fork only.
  TracerConfig config_;
  HostClock clock_;  // stamps records on the program's side (host_clock.h)
  int os_pid_ = 0;  // the process the tracer's outputs belong to
  bool finished_ = false;
  std::unique_ptr<AnalysisWorker> worker_;  // null: analysed inline (configured so, or after Finish)
  host::HostGuards* host_guards_ = nullptr;
  TracerProfile profile_;                   // its switch is read-only; its counters are on lines of their own
  DeviceAccessSource* device_accesses_ = nullptr;  // the precise front-end's, on the worker

  // The program's side: under lock_.
  alignas(64) TracerLock lock_;
  // Transparent lookup: interning a string_view allocates only for new strings.
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, StringId, StringHash, std::equal_to<>> strings_;
  std::vector<const std::string*> string_texts_{nullptr};  // by id: the keys of strings_ (nodes never move)
  std::unordered_map<const char*, StringId> static_strings_;
  // In front of static_strings_, by address bits: the API names of a
  // program's hot calls are found with one line read and no division.
  struct StaticString {
    const char* text = nullptr;
    StringId id = 0;
  };
  std::array<StaticString, 64> recent_static_strings_{};
  HostStacks stacks_;
  std::unordered_map<StackId, StringId> stack_libraries_;  // NoteCallingLibrary's, where not the program's
  std::unordered_map<StackId, StringId> stack_objects_;    // and the path of the object that made the call
  AddressSpan address_span_;
  std::array<uint64_t, 256> native_stacks_by_op_{};  // by OpCode, with STREAMCHECK_DEBUG=profile
  HostThreadOrder host_order_;
  // AwaitHostSynchronizationAnalysis's waits (without the lock: atomics,
  // touched only when a thread waits).
  std::atomic<uint64_t> sync_waits_{0}, sync_wait_ns_{0};

  // The worker's side (or the program's, analysing inline): only Analyze()
  // and Finish() touch it. The worker's picture of memory.
  alignas(64) RecordResolver resolver_;
  TicksToNanoseconds timestamps_{clock_};
  // The errors' words, for ScopeErrors: the session's `also` sink, so
  // declared before it (and destroyed after).
  ScopeFindings scope_findings_;
  std::unique_ptr<store::RunSession> session_;  // database, suppressions, counters (store/run_session.h)
  store::ProcessOutput* output_ = nullptr;      // this process's findings, through session_
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<TraceSink> trace_;
  // The class is aligned to a line, so its size is whole lines: nothing
  // else shares the worker's last one.
};

// The process-wide tracer, created by InitializeInjection; null before.
Tracer* GlobalTracer();

// Runs `body`; an exception from it (a bug of ours, or memory exhausted) is
// reported on stderr (the first few) instead of ending the traced program,
// which is what an exception crossing CUDA's or PyTorch's frames would do.
void ReportInternalError(const char* where, const char* what) noexcept;
template <typename Body>
void GuardInternalErrors(const char* where, Body&& body) noexcept {
  try {
    body();
  } catch (const std::exception& e) {
    ReportInternalError(where, e.what());
  } catch (...) {
    ReportInternalError(where, "unknown exception");
  }
}

}  // namespace streamcheck::tracer
