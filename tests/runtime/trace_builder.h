// Builds record sequences for engine tests, one CUDA call per method, and runs
// them through an Engine collecting the findings.
#pragma once

#include <string>
#include <vector>

#include "runtime/engine.h"
#include "runtime/thread_epochs.h"

namespace streamcheck::testing {

inline MemoryAccess R(Address a, uint64_t n) { return {a, n, AccessMode::kRead}; }
inline MemoryAccess W(Address a, uint64_t n) { return {a, n, AccessMode::kWrite}; }
inline MemoryAccess RW(Address a, uint64_t n) { return {a, n, AccessMode::kReadWrite}; }
inline MemoryAccess U(Address a, uint64_t n) { return {a, n, AccessMode::kUnknown}; }
// A kernel pointer's extent as fast mode guesses it: only its first byte is certain.
inline MemoryAccess Guessed(MemoryAccess a) {
  a.certainty = AccessCertainty::kFirstByte;
  return a;
}
// A pointer found inside a by-value struct: not even its first byte is certain.
inline MemoryAccess InStruct(MemoryAccess a) {
  a.certainty = AccessCertainty::kNone;
  return a;
}

class CollectingSink : public FindingSink {
 public:
  void OnFinding(uint64_t id, const Finding& f) override {
    findings.push_back(f);
    ids.push_back(id);
  }
  void OnFindingCount(uint64_t id, uint64_t count) override {
    for (size_t i = 0; i < ids.size(); ++i)
      if (ids[i] == id) findings[i].count = count;
  }
  std::vector<Finding> findings;
  std::vector<uint64_t> ids;
};

class TraceBuilder {
 public:
  // Every call below appends one record issued by `thread` (default 1).
  TraceBuilder& OnThread(ThreadId t) { thread_ = t; return *this; }

  TraceBuilder& SetDevice(DeviceId d) { auto& r = Add(OpCode::kSetDevice, "cudaSetDevice"); r.device = d; return *this; }
  TraceBuilder& StreamCreate(Handle s, uint32_t flags = 0) {
    auto& r = Add(OpCode::kStreamCreate, "cudaStreamCreateWithFlags"); r.stream = s; r.flags = flags; return *this;
  }
  TraceBuilder& StreamDestroy(Handle s) { Add(OpCode::kStreamDestroy, "cudaStreamDestroy").stream = s; return *this; }
  TraceBuilder& EventCreate(Handle e) { Add(OpCode::kEventCreate, "cudaEventCreate").event = e; return *this; }
  TraceBuilder& Record(Handle e, Handle s) {
    auto& r = Add(OpCode::kEventRecord, "cudaEventRecord"); r.event = e; r.stream = s; return *this;
  }
  TraceBuilder& Wait(Handle s, Handle e) {
    auto& r = Add(OpCode::kStreamWaitEvent, "cudaStreamWaitEvent"); r.stream = s; r.event = e; return *this;
  }
  TraceBuilder& EventSync(Handle e) { Add(OpCode::kEventSynchronize, "cudaEventSynchronize").event = e; return *this; }
  TraceBuilder& EventQuery(Handle e, int result) {
    auto& r = Add(OpCode::kEventQuery, "cudaEventQuery"); r.event = e; r.result = result; return *this;
  }
  TraceBuilder& StreamSync(Handle s) { Add(OpCode::kStreamSynchronize, "cudaStreamSynchronize").stream = s; return *this; }
  TraceBuilder& StreamQuery(Handle s, int result) {
    auto& r = Add(OpCode::kStreamQuery, "cudaStreamQuery"); r.stream = s; r.result = result; return *this;
  }
  TraceBuilder& DeviceSync() { Add(OpCode::kDeviceSynchronize, "cudaDeviceSynchronize"); return *this; }
  TraceBuilder& ElapsedTime(Handle start, Handle end, int result = 0) {
    auto& r = Add(OpCode::kEventElapsedTime, "cudaEventElapsedTime");
    r.event = start; r.event2 = end; r.result = result; return *this;
  }
  TraceBuilder& Malloc(Address a, uint64_t n, MemoryKind kind = MemoryKind::kDevice) {
    auto& r = Add(OpCode::kMalloc, kind == MemoryKind::kDevice ? "cudaMalloc" : "cudaMallocHost");
    r.dst = a; r.size = n; r.memory_kind = kind; return *this;
  }
  TraceBuilder& Free(Address a) { Add(OpCode::kFree, "cudaFree").dst = a; return *this; }
  TraceBuilder& MallocAsync(Address a, uint64_t n, Handle s) {
    auto& r = Add(OpCode::kMallocAsync, "cudaMallocAsync"); r.dst = a; r.size = n; r.stream = s; return *this;
  }
  TraceBuilder& FreeAsync(Address a, Handle s) {
    auto& r = Add(OpCode::kFreeAsync, "cudaFreeAsync"); r.dst = a; r.stream = s; return *this;
  }
  TraceBuilder& PoolBlockAllocate(Address a, uint64_t n, Handle s) {
    auto& r = Add(OpCode::kPoolBlockAllocate, "caching allocator: allocate"); r.dst = a; r.size = n; r.stream = s;
    return *this;
  }
  TraceBuilder& PoolBlockFree(Address a, Handle s) {
    auto& r = Add(OpCode::kPoolBlockFree, "caching allocator: free"); r.dst = a; r.stream = s; return *this;
  }
  TraceBuilder& HostRegister(Address a, uint64_t n) {
    auto& r = Add(OpCode::kHostRegister, "cudaHostRegister"); r.dst = a; r.size = n; return *this;
  }
  TraceBuilder& Kernel(Handle s, const std::string& name, std::vector<MemoryAccess> accesses) {
    auto& r = Add(OpCode::kKernelLaunch, "cudaLaunchKernel"); r.stream = s; r.name = Intern(name);
    r.accesses = std::move(accesses); return *this;
  }
  TraceBuilder& Copy(Handle s, Address dst, Address src, uint64_t n, CopyKind kind, bool async) {
    auto& r = Add(OpCode::kMemcpy, async ? "cudaMemcpyAsync" : "cudaMemcpy");
    r.stream = s; r.dst = dst; r.src = src; r.size = n; r.copy_kind = kind; r.is_async = async; return *this;
  }
  TraceBuilder& Memset(Handle s, Address dst, uint64_t n, bool async) {
    auto& r = Add(OpCode::kMemset, async ? "cudaMemsetAsync" : "cudaMemset");
    r.stream = s; r.dst = dst; r.size = n; r.is_async = async; return *this;
  }
  TraceBuilder& HostFunc(Handle s) { Add(OpCode::kHostFunc, "cudaLaunchHostFunc").stream = s; return *this; }
  // A host function the tracer follows (its trampoline): `id` names its run.
  TraceBuilder& HostFunc(Handle s, uint32_t id) {
    auto& r = Add(OpCode::kHostFunc, "cudaStreamAddCallback"); r.stream = s; r.id = id; return *this;
  }
  // The current thread (the driver's) runs host function `id`, then returns.
  TraceBuilder& HostFuncBegin(uint32_t id) { auto& r = Add(OpCode::kHostFuncBegin, ""); r.id = id; r.api = 0; return *this; }
  TraceBuilder& HostFuncEnd(uint32_t id) { auto& r = Add(OpCode::kHostFuncEnd, ""); r.id = id; r.api = 0; return *this; }
  TraceBuilder& HostRead(Address a, uint64_t n) { Add(OpCode::kHostAccess, "host read").accesses = {R(a, n)}; return *this; }
  TraceBuilder& HostWrite(Address a, uint64_t n) { Add(OpCode::kHostAccess, "host write").accesses = {W(a, n)}; return *this; }
  // An MPI call starts operation `id` on these bytes (kMpiStart), or its
  // completion is seen (kMpiComplete); a blocking call is both.
  TraceBuilder& MpiStart(const std::string& call, uint32_t id, std::vector<MemoryAccess> accesses) {
    auto& r = Add(OpCode::kMpiStart, call); r.id = id; r.accesses = std::move(accesses); return *this;
  }
  TraceBuilder& MpiComplete(const std::string& call, uint32_t id) {
    Add(OpCode::kMpiComplete, call).id = id; return *this;
  }
  TraceBuilder& BeginCapture(Handle s) { Add(OpCode::kStreamBeginCapture, "cudaStreamBeginCapture").stream = s; return *this; }
  // cudaStreamBeginCaptureToGraph: the stream's work joins `graph` after `deps`.
  TraceBuilder& BeginCaptureToGraph(Handle s, Handle graph, std::vector<Handle> deps) {
    auto& r = Add(OpCode::kStreamBeginCapture, "cudaStreamBeginCaptureToGraph");
    r.stream = s; r.graph = graph; r.deps = std::move(deps); return *this;
  }
  TraceBuilder& EndCapture(Handle s, Handle graph) {
    auto& r = Add(OpCode::kStreamEndCapture, "cudaStreamEndCapture"); r.stream = s; r.graph = graph; return *this;
  }
  TraceBuilder& GraphCreate(Handle g) { Add(OpCode::kGraphCreate, "cudaGraphCreate").graph = g; return *this; }
  TraceBuilder& GraphKernelNode(Handle g, Handle node, std::vector<Handle> deps, const std::string& name,
                                std::vector<MemoryAccess> accesses) {
    auto& r = Add(OpCode::kGraphAddNode, "cudaGraphAddKernelNode");
    r.graph = g; r.node = node; r.node_op = OpCode::kKernelLaunch; r.deps = std::move(deps);
    r.name = Intern(name); r.accesses = std::move(accesses); return *this;
  }
  // A host node; `id` != 0: the tracer follows its runs (kHostFuncBegin `id`, one per launch).
  TraceBuilder& GraphHostNode(Handle g, Handle node, std::vector<Handle> deps, uint32_t id) {
    auto& r = Add(OpCode::kGraphAddNode, "cudaGraphAddHostNode");
    r.graph = g; r.node = node; r.node_op = OpCode::kHostFunc; r.deps = std::move(deps); r.id = id; return *this;
  }
  TraceBuilder& GraphDependency(Handle g, Handle node, std::vector<Handle> deps) {
    auto& r = Add(OpCode::kGraphAddDependency, "cudaGraphAddDependencies");
    r.graph = g; r.node = node; r.deps = std::move(deps); return *this;
  }
  TraceBuilder& Instantiate(Handle exec, Handle g) {
    auto& r = Add(OpCode::kGraphInstantiate, "cudaGraphInstantiate"); r.graph_exec = exec; r.graph = g; return *this;
  }
  TraceBuilder& ExecUpdate(Handle exec, Handle g) {
    auto& r = Add(OpCode::kGraphExecUpdate, "cudaGraphExecUpdate"); r.graph_exec = exec; r.graph = g; return *this;
  }
  TraceBuilder& ExecDestroy(Handle exec) {
    Add(OpCode::kGraphExecDestroy, "cudaGraphExecDestroy").graph_exec = exec; return *this;
  }
  TraceBuilder& Launch(Handle exec, Handle s) {
    auto& r = Add(OpCode::kGraphLaunch, "cudaGraphLaunch"); r.graph_exec = exec; r.stream = s; return *this;
  }
  // Host threads have their own clocks from here (what the tracer says when it
  // observes the program's synchronization); without it, trace order.
  TraceBuilder& PerThreadClocks(bool on = true) {
    auto& r = Add(OpCode::kHostThreadOrder, ""); r.flags = on ? 1 : 0; r.api = 0; return *this;
  }
  // The current thread's epoch `epoch` ends (it released something in it).
  TraceBuilder& ThreadRelease(uint32_t epoch) {
    auto& r = Add(OpCode::kThreadRelease, ""); r.id = epoch; r.api = 0; return *this;
  }
  // The current thread acquired what `thread` released in `epoch`.
  TraceBuilder& ThreadAcquire(ThreadId thread, uint32_t epoch) {
    auto& r = Add(OpCode::kThreadAcquire, ""); r.deps = {ThreadEpochDep(thread, epoch)}; r.api = 0; return *this;
  }
  // The current thread opens a scope named `name` inside the one it is in
  // (docs/SCOPES.md), or closes its innermost.
  TraceBuilder& ScopeBegin(const std::string& name) {
    auto& r = Add(OpCode::kScopeBegin, ""); r.name = Intern(name); r.api = 0; r.stack = 0; return *this;
  }
  TraceBuilder& ScopeEnd() { auto& r = Add(OpCode::kScopeEnd, ""); r.api = 0; r.stack = 0; return *this; }
  // The last call was made at stack `stack` (the same call site as another).
  TraceBuilder& AtStack(StackId stack) { records_.back().stack = stack; return *this; }
  // Marks the last record with a framework op name (e.g. "aten::sum").
  TraceBuilder& FrameworkOp(const std::string& op) { records_.back().framework_op = Intern(op); return *this; }
  // Marks the last record as a library's own work (e.g. "nccl").
  TraceBuilder& Library(const std::string& library) { records_.back().library = Intern(library); return *this; }
  // The last call was made from `library`'s code: its stack's definition says
  // so (the tracer names the library of a stack's first frame).
  TraceBuilder& CalledFrom(const std::string& library) {
    TraceRecord def;
    def.op = OpCode::kDefineStack;
    def.id = records_.back().stack;
    def.frames = {{0, 0, 0, 0x7000}};
    def.library = Intern(library);
    defines_.push_back(def);
    return *this;
  }
  // The last call was made by the code of the object (executable or shared
  // library) at `path`: its stack's definition says so (define_stack's name).
  TraceBuilder& CalledFromObject(const std::string& path) {
    TraceRecord def;
    def.op = OpCode::kDefineStack;
    def.id = records_.back().stack;
    def.frames = {{Intern("caller"), Intern("caller.cu"), 7, 0x7000}};
    def.name = Intern(path);
    defines_.push_back(def);
    return *this;
  }

  // String definitions first, then the calls in order.
  std::vector<TraceRecord> records() const {
    std::vector<TraceRecord> all = defines_;
    all.insert(all.end(), records_.begin(), records_.end());
    return all;
  }

  std::vector<Finding> Run(EngineStats* stats = nullptr, const EngineOptions& options = {}) const {
    CollectingSink sink;
    Engine engine(&sink, options);
    for (const TraceRecord& r : records()) engine.Process(r);
    engine.Finish();
    if (stats) *stats = engine.stats();
    return sink.findings;
  }

 private:
  TraceRecord& Add(OpCode op, const std::string& api) {
    TraceRecord r;
    r.op = op;
    r.thread = thread_;
    r.api = Intern(api);
    // Each call gets its own stack, as distinct call sites in a real program do.
    r.stack = static_cast<StackId>(records_.size() + 1);
    records_.push_back(std::move(r));
    return records_.back();
  }
  StringId Intern(const std::string& s) {
    if (s.empty()) return 0;
    for (size_t i = 0; i < strings_.size(); ++i)
      if (strings_[i] == s) return static_cast<StringId>(i + 1);
    strings_.push_back(s);
    defines_.push_back(StringDefinition(static_cast<uint32_t>(strings_.size()), s));
    return defines_.back().id;
  }
  ThreadId thread_ = 1;
  std::vector<TraceRecord> defines_;
  std::vector<TraceRecord> records_;
  std::vector<std::string> strings_;
};

}  // namespace streamcheck::testing
