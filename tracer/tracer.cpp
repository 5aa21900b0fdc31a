#include "tracer/tracer.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

#include "runtime/memory_estimate.h"
#include "runtime/trace/trace_symbols.h"
#include "tracer/debug/debug_flags.h"
#include "tracer/frameworks/framework_ops.h"
#include "tracer/frameworks/framework_plugin.h"
#include "tracer/host/host_guards.h"
#include "tracer/hot_path.h"
#include "tracer/job_place.h"
#include "tracer/libraries/library_modules.h"
#include "tracer/scopes/scope_hooks.h"
#include "tracer/thread_state.h"
#include "tracer/environment.h"

namespace streamcheck::tracer {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string CommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : raw)
    if (c == '\0') c = ' ';
  while (!raw.empty() && raw.back() == ' ') raw.pop_back();
  return raw;
}

void Warn(const std::string& message) { std::fprintf(stderr, "streamcheck: %s\n", message.c_str()); }

// Calls after which the host waited for the device: already slow, so the
// tracer waits there too (for the analysis worker, for the trace file), and
// programs do them before they end, whether by exit() or by _exit().
bool HostWaitedForDevice(const TraceRecord& r) {
  switch (r.op) {
    case OpCode::kDeviceSynchronize:
    case OpCode::kStreamSynchronize:
    case OpCode::kEventSynchronize:
    case OpCode::kFree:  // cudaFree synchronizes the device
    case OpCode::kDeviceReset:
      return true;
    case OpCode::kMemcpy:
      return !r.is_async;
    default:
      return false;
  }
}

// Records after which the program's memory has a new allocation in it.
bool IsAllocation(OpCode op) {
  return op == OpCode::kMalloc || op == OpCode::kMallocAsync || op == OpCode::kHostRegister ||
         op == OpCode::kPoolBlockAllocate;
}

std::atomic<ThreadId> g_next_thread{1};

// A rank on another host than `run`'s (srun, mpirun over several nodes) may
// see the same paths on a shared file system, where SQLite's locks cannot
// be trusted and pids repeat: it writes a database and traces of its host's
// beside them, which `streamcheck merge` joins (docs/NCCL.md).
bool OnAnotherHostThanRun() {
  const std::string run_host = Env(environment::kRunHost);
  return !run_host.empty() && run_host != JobPlaceOfThisProcess().host;
}

// STREAMCHECK_TRACE names the root process's trace; every other process
// (launchers' ranks, multiprocessing, forked children) writes beside it,
// suffixed with its pid, and with its host on another host than run's.
std::string TracePathOfThisProcess(bool forked) {
  const std::string root = Env(environment::kTrace);
  if (root.empty()) return root;
  const bool other_host = OnAnotherHostThanRun();
  if (!forked && !other_host && Env(environment::kRootPid) == std::to_string(getpid())) return root;
  return root + (other_host ? "." + JobPlaceOfThisProcess().host : std::string()) + "." + std::to_string(getpid());
}

// What a replay of the trace checks as this run did (cli/cmd_replay.cpp):
// " forbid_default_stream=GLOB", "*" for every object's work.
std::string ForbidDefaultStreamField(const TracerConfig& c) {
  if (!c.forbid_default_stream) return "";
  return " " + std::string(kForbidDefaultStreamField) + "=" +
         EncodeProcessInfoValue(c.default_stream_objects.empty() ? "*" : c.default_stream_objects);
}

}  // namespace

TracerConfig TracerConfig::FromEnvironment() {
  TracerConfig c;
  c.db_path = Env(environment::kDb);
  const std::string run = Env(environment::kRunId);
  c.run_id = run.empty() ? -1 : std::strtoll(run.c_str(), nullptr, 10);
  if (OnAnotherHostThanRun() && !c.db_path.empty()) {
    c.db_path.append(".").append(JobPlaceOfThisProcess().host);
    c.run_id = -1;  // a run of its own in that database
  }
  c.trace_path = TracePathOfThisProcess(/*forked=*/false);
  c.suppressions = Env(environment::kSuppressions);
  c.capture_stacks = Env(environment::kStacks) != "0";
  c.analysis_worker = !DebugFlag(DebugSwitch::kInlineAnalysis);
  c.queue_records = !DebugFlag(DebugSwitch::kDropRecords);
  c.analyse_records = !DebugFlag(DebugSwitch::kSkipAnalysis);
  c.host_guards = Env(environment::kHostGuards) != "0";
  if (const char* objects = std::getenv(environment::kForbidDefaultStream)) {
    c.forbid_default_stream = true;
    c.default_stream_objects = std::string(objects) == "*" ? "" : objects;
  }
  return c;
}

Tracer::Tracer(TracerConfig config)
    : config_(std::move(config)), os_pid_(getpid()) {
  if (!DebugFlag(DebugSwitch::kTraceOrderThreads))
    host_order_.Start(/*rebind_sync_calls=*/!DebugFlag(DebugSwitch::kNoSyncRebinding));
  OpenOutputs();
  StartWorker();
}

// The worker analyses into the engine and store, declared after it (and so
// destroyed before it): it stops first.
Tracer::~Tracer() { worker_.reset(); }

void Tracer::StartWorker() {
  if (config_.analysis_worker) worker_ = std::make_unique<AnalysisWorker>([this](TraceRecord& r) { Analyze(r); });
}

void Tracer::OpenOutputs() {
  const JobPlace place = JobPlaceOfThisProcess();
  store::SessionConfig session;
  session.db_path = config_.db_path;
  session.existing_run = config_.run_id;
  session.run.mode = "run";
  session.run.command = CommandLine();
  session.suppressions_path = config_.suppressions;
  session.best_effort = true;  // never take the program down for an output
  session.frames_name_sources = true;  // the program's own frames: its source folders
  if (const std::string wait = Env(environment::kBusyTimeoutMs); !wait.empty())
    session.open.busy_timeout_ms = std::atoi(wait.c_str());
  std::string error;
  session_ = store::RunSession::Open(session, &error);
  for (const std::string& warning : session_->warnings()) Warn(warning);
  config_.run_id = session_->run_id();
  scope_findings_.Clear();
  output_ = session_->AddProcess(store::ProcessInfo{getpid(), CommandLine(), place.host, place.rank},
                                 &scope_findings_);
  EngineOptions options;
  options.forbid_default_stream = config_.forbid_default_stream;
  options.default_stream_objects = config_.default_stream_objects;
  engine_ = std::make_unique<Engine>(output_, options);
  engine_->set_stack_resolver(this);
  if (!config_.trace_path.empty()) {
    std::string error;
    trace_ = CreateBinaryTraceWriter(config_.trace_path, &error);
    if (!trace_) Warn("cannot write trace: " + error);
  }
  TraceRecord info;
  info.op = OpCode::kProcessInfo;
  // The command last: it has spaces (ProcessInfoField, trace_symbols.h, reads it so).
  info.text = "pid=" + std::to_string(getpid()) + " " + DescribeJobPlace(place) +
              ForbidDefaultStreamField(config_) + " command=" + CommandLine();
  Submit(info);
  // Host threads have their own clocks when the preloaded library tells how
  // they synchronize (host_thread_order.h); the engine's default is trace order.
  if (host_order_.on()) {
    TraceRecord mode = host_order_.ModeRecord();
    Submit(mode);
  }
  // Every string and stack defined so far must reach a fresh engine/trace too.
  for (const auto& [text, id] : strings_) {
    TraceRecord def = StringDefinition(id, text);
    Submit(def);
  }
}

STREAMCHECK_HOT void Tracer::Submit(TraceRecord& r) {
  if (!config_.queue_records) return;
  if (!worker_ || !worker_->running()) return Analyze(r);
  const uint64_t queue_start = profile_.Now();
  // The program's thread waits for a record's analysis only where it may
  // open guarded pages (host_guards.h). Findings need no wait: the queue is
  // emptied at exit, before fork and _exit() and on signals that end the
  // program (crash_signals.h); a wait at every synchronization cost the
  // program the worker's backlog there (a --precise launch's merge, some
  // 10 ms for a million ranges, at each).
  const bool opens_pages = host_guards_ != nullptr && host_guards_->OpensPagesAfter(r, HostWaitedForDevice(r));
  const uint64_t sequence = worker_->Push(r);
  if (opens_pages) ThisThread().unanalysed_sync = sequence;
  profile_.Add(ProfilePhase::kQueue, queue_start);
}

void Tracer::Analyze(TraceRecord& r) {
  if (!config_.analyse_records) return;
  GuardInternalErrors("the analysis of a record", [&] {
    if (r.timestamp_ns != 0) r.timestamp_ns = timestamps_(r.timestamp_ns);
    const uint64_t resolve_start = profile_.Now();
    if (r.device_access_ticket != 0 && device_accesses_ != nullptr) device_accesses_->Complete(r, resolver_.allocations());
    const bool analysed = resolver_.Resolve(r);
    profile_.Add(ProfilePhase::kResolve, resolve_start);
    if (!analysed) return;
    const uint64_t engine_start = profile_.Now();
    engine_->Process(r);
    profile_.Add(ProfilePhase::kEngine, engine_start);
    if (host_guards_ != nullptr) host_guards_->AfterAnalysis(r, *engine_, /*processed=*/true);
    if (!trace_) return;
    const uint64_t trace_start = profile_.Now();
    trace_->Append(r);
    // A program that ends with _exit() runs no exit handler: writing the
    // trace out where the host waited for the device keeps it complete up
    // to the last such call.
    if (HostWaitedForDevice(r)) trace_->Flush();
    else trace_->FlushIfOlderThan(200);
    profile_.Add(ProfilePhase::kTraceOutput, trace_start);
  });
  // Its guarded pages wait for no device work when the engine failed on it.
  if (r.guards_host_pages && host_guards_ != nullptr) host_guards_->AfterAnalysis(r, *engine_, /*processed=*/false);
}

STREAMCHECK_HOT void Tracer::AwaitHostSynchronizationAnalysis() {
  uint64_t& unanalysed = ThisThread().unanalysed_sync;
  if (unanalysed == 0) return;
  const uint64_t sequence = unanalysed;
  unanalysed = 0;
  const uint64_t wait_start = profile_.Now();
  const auto start = std::chrono::steady_clock::now();
  worker_->WaitFor(sequence);  // at once when the worker has stopped: it analysed everything first
  sync_wait_ns_.fetch_add(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now() - start).count()),
                          std::memory_order_relaxed);
  sync_waits_.fetch_add(1, std::memory_order_relaxed);
  profile_.Add(ProfilePhase::kAnalysisWait, wait_start);
}

size_t Tracer::TableHeapBytes() {
  size_t bytes = memory::HashMap(strings_) + memory::Buffer(string_texts_) + memory::HashMap(static_strings_) +
                 memory::HashMap(stack_libraries_) + memory::HashMap(stack_objects_) + stacks_.HeapBytes();
  for (const auto& [text, id] : strings_) bytes += memory::Heap(text);
  return bytes;
}

void Tracer::AddAnalysisCounters() {
  namespace names = store::counters;
  const AnalysisWorker::Holds holds = worker_ ? worker_->holds() : AnalysisWorker::Holds{};
  const uint64_t skipped = host_guards_ != nullptr ? host_guards_->waits_skipped() : 0;
  const std::map<std::string, uint64_t> counters{
      {std::string(names::kSyncWaits), sync_waits_.load()},
      {std::string(names::kSyncWaitMicroseconds), sync_wait_ns_.load() / 1000},
      {std::string(names::kSyncWaitsSkipped), skipped},
      {std::string(names::kQueueFullWaits), holds.count},
      {std::string(names::kQueueFullWaitMicroseconds), holds.nanoseconds / 1000},
      {std::string(names::kTracerTableBytes), TableHeapBytes()},
  };
  session_->AddCounters(output_, names::kAnalysis, counters);
  // Beside the profile (STREAMCHECK_DEBUG=profile), for the bench scripts.
  if (profile_.on())
    std::fprintf(stderr,
                 "streamcheck[profile]: analysis waits: at synchronizations %llu (%.3f ms), skipped %llu; "
                 "held by a full queue %llu (%.3f ms)\n",
                 static_cast<unsigned long long>(sync_waits_.load()), sync_wait_ns_.load() / 1e6,
                 static_cast<unsigned long long>(skipped), static_cast<unsigned long long>(holds.count),
                 holds.nanoseconds / 1e6);
}

void Tracer::AwaitAnalysis() {
  if (worker_ && worker_->running() && !AnalysisWorker::OnWorkerThread()) worker_->Drain();
}

StringId Tracer::Intern(std::string_view text) {
  if (text.empty()) return 0;
  auto it = strings_.find(text);
  if (it != strings_.end()) return it->second;
  const StringId id = static_cast<StringId>(strings_.size() + 1);
  string_texts_.push_back(&strings_.emplace(std::string(text), id).first->first);  // ids are dense
  TraceRecord def = StringDefinition(id, std::string(text));
  Submit(def);
  return id;
}

STREAMCHECK_HOT StringId Tracer::InternStatic(const char* text) {
  if (text == nullptr) return 0;
  StaticString& recent =
      recent_static_strings_[(reinterpret_cast<uintptr_t>(text) >> 3) % recent_static_strings_.size()];
  if (recent.text == text) return recent.id;
  auto [it, inserted] = static_strings_.try_emplace(text, 0);
  if (inserted) it->second = Intern(text);
  recent = {text, it->second};
  return it->second;
}

STREAMCHECK_HOT ThreadId Tracer::CurrentThread() {
  ThreadState& thread = ThisThread();
  if (thread.id == 0) {
    thread.id = g_next_thread.fetch_add(1);
    // A thread a library started (NCCL's proxy threads) does the library's
    // work only. Its first record pays for one whole unwind.
    thread.library_thread = Intern(LibraryThatStartedThisThread());
    NoteThreadToFrameworks();
    thread.order = host_order_.Name(thread.id);
    if (thread.order == nullptr && host_order_.on()) {
      // More threads than a clock has entries: trace order from here on.
      host_order_.GiveUp();
      TraceRecord mode = host_order_.ModeRecord();
      Submit(mode);
    }
    // A test's scope opened before CUDA loaded the tracer (or before this
    // thread's first call) holds this thread's work from here.
    EmitOpenScopes(thread.id);
  }
  return thread.id;
}

STREAMCHECK_HOT void Tracer::Emit(TraceRecord& r) {
  r.thread = CurrentThread();
  r.timestamp_ns = clock_.Ticks();  // a count until Analyze() converts it
  if (IsAllocation(r.op)) address_span_.Widen(r.dst, r.size);
  ThreadState& thread = ThisThread();
  if (r.library == 0) r.library = thread.library_call != 0 ? thread.library_call : thread.library_thread;
  // The library (cuBLAS, cuDNN, ...) whose code called cudaMalloc: its
  // workspace is memory the program never sees. A stack of its own, apart
  // from the one findings show; allocations are rare enough to afford one.
  if (r.library == 0 && (r.op == OpCode::kMalloc || r.op == OpCode::kMallocAsync))
    r.library = Intern(LibraryOfModule(CallingModuleOfThisThread()));
  // What the thread learnt from other threads, and the end of an epoch that
  // others may be after, reach the engine before the record they precede.
  if (thread.order == nullptr && host_order_.on()) [[unlikely]]
    thread.order = host_order_.Named(thread.id);
  if (streamcheck_thread_order* order = thread.order) {
    const uint64_t order_start = profile_.Now();
    host_order_.Before(*order, r, [this](TraceRecord& ordering) { Submit(ordering); });
    profile_.Add(ProfilePhase::kHostThreadOrder, order_start);
  }
  // Inside a framework op: its name, and its (Python) stack, which says more
  // to the user than the native frames of the framework would. The worker
  // learns which ops are open (their regions) just before this record.
  FrameworkOpStack& ops = thread.framework_ops;
  if (!ops.empty()) {
    r.framework_op = ops.name();
    if (r.stack == 0) r.stack = ops.stack();
  }
  r.closes_framework_ops = false;
  if (ops.Publish(&r, &thread.open_ops)) {
    thread.open_ops.thread = r.thread;
    Submit(thread.open_ops);
  }
  // No stack where no finding can show it (nor for a library's own work,
  // whose findings are only counted), nor for work the framework says has
  // no stack worth taking (its own threads).
  bool wanted = FindingsCiteStackOf(r.op) && r.library == 0;
  if (r.stack == STREAMCHECK_STACK_NONE) r.stack = 0, wanted = false;
  if (config_.capture_stacks && r.stack == 0 && wanted) {
    const uint64_t stack_start = profile_.Now();
    bool is_new = false;
    r.stack = stacks_.Capture(&is_new);
    profile_.Add(ProfilePhase::kStack, stack_start);
    if (profile_.on()) ++native_stacks_by_op_[static_cast<uint8_t>(r.op)];
    if (is_new && r.op == OpCode::kKernelLaunch && r.name != 0) stacks_.NoteKernel(r.stack, *string_texts_[r.name]);
    if (is_new) {
      // The trace keeps raw program counters; a replay elsewhere shows them
      // as addresses. Live findings are symbolized through Resolve().
      TraceRecord def;
      def.op = OpCode::kDefineStack;
      def.id = r.stack;
      for (uint64_t pc : stacks_.ProgramCounters(r.stack)) def.frames.push_back({0, 0, 0, pc});
      def.library = NoteCallingLibrary(r.stack);
      if (const auto object = stack_objects_.find(r.stack); object != stack_objects_.end()) def.name = object->second;
      Submit(def);
    }
  }
  if (host_guards_ != nullptr) {
    const uint64_t guards_start = profile_.Now();
    host_guards_->BeforeQueue(r);
    profile_.Add(ProfilePhase::kHostGuards, guards_start);
  }
  Submit(r);
}

// The library whose code made the call a native stack was taken at (its
// first frame outside CUDA, the tracer and the C/C++ runtimes): what a
// single operation's finding is charged to (Engine: CallingLibrary). Once per
// new stack, under the tracer's lock; kept for the stack's symbolized
// definition at exit, when the library may be unloaded.
StringId Tracer::NoteCallingLibrary(StackId stack) {
  const std::vector<uint64_t>& pcs = stacks_.ProgramCounters(stack);
  const std::string_view object = CallingObject(pcs.data(), pcs.size());
  const StringId library = Intern(LibraryOfModule(object));
  if (library != 0) stack_libraries_[stack] = library;
  // The object's path: what --forbid-default-stream=GLOB matches (define_stack's name).
  if (const StringId path = Intern(object); path != 0) stack_objects_[stack] = path;
  return library;
}

void Tracer::EmitOpenScopes(ThreadId thread) {
  for (const std::string_view name : OpenScopesOfThisThread()) {
    TraceRecord r;
    r.op = OpCode::kScopeBegin;
    r.thread = thread;
    r.name = Intern(name);
    r.timestamp_ns = clock_.Ticks();
    Submit(r);
  }
}

void Tracer::EmitScopeMark(TraceRecord& r) {
  r.thread = CurrentThread();
  r.timestamp_ns = clock_.Ticks();
  Submit(r);
}

void Tracer::ScopeBegin(const char* name) {
  std::lock_guard<TracerLock> lock(lock_);
  if (finished_) return;
  TraceRecord r;
  r.op = OpCode::kScopeBegin;
  r.name = Intern(name);
  EmitScopeMark(r);
}

void Tracer::ScopeEnd() {
  std::lock_guard<TracerLock> lock(lock_);
  if (finished_) return;
  // On the thread's first record, the catch-up (CurrentThread) opens the
  // scope being closed first: the preloaded library drops it after this.
  TraceRecord r;
  r.op = OpCode::kScopeEnd;
  EmitScopeMark(r);
}

long Tracer::ScopeErrors(char* text, size_t size) {
  std::lock_guard<TracerLock> lock(lock_);
  if (finished_ || !engine_) return 0;
  const ThreadId thread = CurrentThread();
  // Every record queued so far analysed, and the worker held between two
  // while the engine is read (as for fork).
  PauseAnalysis();
  struct Resume {
    Tracer* tracer;
    ~Resume() { tracer->ResumeAnalysis(); }  // also when the report throws (GuardInternalErrors catches it)
  } resume{this};
  return scope_findings_.Report(*engine_, engine_->OpenScope(thread), text, size);
}

void Tracer::CountUnmodeled(std::string_view api) {
  TraceRecord r;
  r.op = OpCode::kUnmodeledApi;
  r.api = Intern(api);
  Emit(r);
}

StackId Tracer::AddFrameworkStack(const StreamcheckFrame* frames, size_t count) {
  std::vector<ResolvedFrame> resolved;
  TraceRecord def;
  def.op = OpCode::kDefineStack;
  for (size_t i = 0; i < count; ++i) {
    const StreamcheckFrame& f = frames[i];
    resolved.push_back(SourceFrame(f.function ? f.function : "", f.file ? f.file : "", f.line));
    def.frames.push_back({Intern(resolved.back().function), Intern(resolved.back().file), f.line, 0});
  }
  def.id = stacks_.AddSymbolized(std::move(resolved));
  Submit(def);
  return def.id;
}

void Tracer::PoolBlock(StreamcheckBlockEvent event, Address address, uint64_t size, Handle stream, int device,
                       StackId stack) {
  TraceRecord r;
  r.stack = ThisThreadFrameworkOps().empty() ? stack : 0;  // inside an op, Emit() takes the op's
  r.dst = address;
  r.stream = stream;
  r.device = device;
  // The worker books the block (and drops the free of one handed out before
  // the plugin attached): record_resolver.h.
  if (event == STREAMCHECK_BLOCK_ALLOCATED) {
    r.op = OpCode::kPoolBlockAllocate;
    r.api = InternStatic("caching allocator: allocate");
    r.size = size;
  } else {
    r.op = OpCode::kPoolBlockFree;
    r.api = InternStatic("caching allocator: free");
  }
  Emit(r);
}

void Tracer::Finish() {
  if (finished_) return;
  finished_ = true;
  // What is queued is analysed first; calls made after this (the CUDA
  // runtime's own teardown) are analysed inline.
  if (device_accesses_) device_accesses_->Finishing();
  if (worker_) worker_->Stop();
  engine_->Finish();
  session_->FinishProcess(output_, &engine_->stats());
  AddAnalysisCounters();
  // Whether host threads were ordered by their observed synchronization
  // (else in trace order), objects whose release stamps shared one, and the
  // libraries' lock calls bound past the interposers.
  session_->AddCounters(output_, store::counters::kHostThreads,
                        {{std::string(store::counters::kOrderedByObservedSynchronization), host_order_.on() ? 1u : 0u},
                         {std::string(store::counters::kObjectsSharingAStamp), host_order_.objects_beyond_table()},
                         {std::string(store::counters::kLibraryCallsBoundToLibc),
                          static_cast<uint64_t>(host_order_.rebound_calls())}});
  if (device_accesses_) {
    const std::map<std::string, uint64_t> notes = device_accesses_->Notes();
    if (session_->has_store())
      session_->AddCounters(output_, store::counters::kPrecise, notes);
    else
      for (const auto& [what, n] : notes) Warn(what + " (" + std::to_string(n) + "x)");
  }
  if (host_guards_ != nullptr) {
    // No guarding after the final summary: the program's exit handlers and
    // destructors touch their pinned memory unobserved.
    host_guards_->Shutdown();
    session_->AddCounters(output_, store::counters::kHostGuards, host_guards_->Counters());
  }
  if (trace_) {
    WriteSymbolizedStacks();
    trace_->Close();
  }
  profile_.Print();
  // With profiling, and with stack verification (whose result the GPU tests check).
  if (const std::string repeated = stacks_.RepeatedStacksSummary(); !repeated.empty())
    std::fprintf(stderr, "streamcheck[profile]: %s\n", repeated.c_str());
  if (profile_.on()) {
    std::string line = "streamcheck[profile]: native stacks by operation:";
    for (size_t op = 0; op < native_stacks_by_op_.size(); ++op)
      if (native_stacks_by_op_[op] != 0)
        line.append(" ").append(OpCodeName(static_cast<OpCode>(op))).append(" ")
            .append(std::to_string(native_stacks_by_op_[op])).append(";");
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  if (!session_->has_store() && output_->tally().kept > 0)
    Warn(std::to_string(output_->tally().kept) + " findings were not stored (no database)");
  if (session_->failed_writes() != 0)
    Warn("writing to " + config_.db_path + " failed (" + session_->first_error() + "); " +
         std::to_string(output_->tally().stored) + " of " + std::to_string(output_->tally().kept) +
         " findings of this process were stored");
}

// The trace defined each stack by program counters only; a replay on another
// machine cannot symbolize those, so the stacks go into the trace again with
// function, file and line (replay reads the last definition of each).
void Tracer::WriteSymbolizedStacks() {
  stacks_.ResolveAll();
  for (StackId id = 1; id <= stacks_.size(); ++id) {
    TraceRecord def;
    def.op = OpCode::kDefineStack;
    def.id = id;
    for (const ResolvedFrame& f : stacks_.Symbolize(id))
      def.frames.push_back({Intern(f.function), Intern(f.file), f.line, f.pc});
    if (const auto it = stack_libraries_.find(id); it != stack_libraries_.end()) def.library = it->second;
    if (const auto it = stack_objects_.find(id); it != stack_objects_.end()) def.name = it->second;
    trace_->Append(def);
  }
}

void Tracer::PauseAnalysis() {
  if (!worker_) return;
  worker_->Drain();
  worker_->busy().lock();
}

void Tracer::ResumeAnalysis() {
  if (worker_) worker_->busy().unlock();
}

void Tracer::RestartAfterFork() {
  // The parent's SQLite connection and trace file must not be touched here:
  // release them without closing. Its worker thread does not exist here, nor
  // do its records still queued (the parent analyses them): the worker's
  // object is left as it is, never destroyed (its thread cannot be joined).
  (void)worker_.release();
  (void)session_.release();
  output_ = nullptr;
  (void)trace_.release();
  engine_.reset();
  finished_ = false;
  os_pid_ = getpid();
  sync_waits_ = 0;  // the parent's waits are the parent's to count
  sync_wait_ns_ = 0;
  config_.trace_path = TracePathOfThisProcess(/*forked=*/true);
  OpenOutputs();
  StartWorker();
  // The forking thread's open scopes, for the child's fresh engine.
  if (const ThreadId thread = ThisThread().id; thread != 0) EmitOpenScopes(thread);
}

bool Tracer::OwnsThisProcess() const { return getpid() == os_pid_; }

void Tracer::SaveForCrash() {
  // Findings are committed to the database as the worker finds them; give it
  // time to reach the records queued before the crash. The crashing thread
  // may hold a lock the worker needs, hence the limit.
  constexpr int kCrashDrainMs = 3000;
  if (worker_ && worker_->running()) {
    // The worker crashed inside a record: its trace buffer may be half written.
    if (AnalysisWorker::OnWorkerThread()) return;
    if (!worker_->DrainForCrash(kCrashDrainMs)) return;
    // Between records from here on: the trace writer is ours to flush.
    if (!worker_->busy().try_lock()) return;
  }
  if (trace_) trace_->Flush();
}

void ReportInternalError(const char* where, const char* what) noexcept {
  static std::atomic<int> reported{0};
  constexpr int kMaxReports = 5;
  const int n = reported.fetch_add(1);
  if (n < kMaxReports)
    std::fprintf(stderr, "streamcheck: internal error in %s: %s; the program goes on, this call is not analysed%s\n",
                 where, what, n + 1 == kMaxReports ? " (further internal errors are not shown)" : "");
}

}  // namespace streamcheck::tracer
