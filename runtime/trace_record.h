// The event vocabulary: one TraceRecord per host-side CUDA call (or definition)
// that can affect ordering or memory. The tracer produces these, the trace
// format stores them, the engine gives them meaning. Fields a record kind does
// not use stay at their defaults (the binary encoding omits them).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "runtime/ids.h"

namespace streamcheck {

// Stable numbering: these values are written to trace files. Append only.
enum class OpCode : uint8_t {
  kInvalid = 0,
  // Definitions: no ordering meaning.
  kDefineString = 1,  // id=string_id, text
  kDefineStack = 2,   // id=stack_id, frames, [library], [name: the path of the object whose code made the call]
  kProcessInfo = 3,   // text = "key=value" metadata (command, pid, host, gpu)
  kThreadName = 4,    // thread, text
  kUnmodeledApi = 5,  // api: a call that may change ordering but is not modeled (counted)
  // Context.
  kSetDevice = 10,      // device
  kDeviceReset = 11,    // (current device)
  // Streams and events.
  kStreamCreate = 20,      // stream, flags (kStreamNonBlocking), priority, [device]
  kStreamDestroy = 21,     // stream
  kEventCreate = 22,       // event, flags
  kEventDestroy = 23,      // event
  kEventRecord = 24,       // event, stream
  kStreamWaitEvent = 25,   // stream, event
  kEventSynchronize = 26,  // event
  kEventQuery = 27,        // event, result (0 = cudaSuccess)
  kStreamSynchronize = 28, // stream
  kStreamQuery = 29,       // stream, result
  kDeviceSynchronize = 30, // (current device)
  kEventElapsedTime = 31,  // event (start), event2 (end), result
  // Memory lifetime.
  kMalloc = 40,         // dst (address), size, memory_kind, [device]
  kFree = 41,           // dst
  kMallocAsync = 42,    // dst, size, stream
  kFreeAsync = 43,      // dst, stream
  kHostRegister = 44,   // dst, size
  kHostUnregister = 45, // dst
  // A framework's caching allocator (PyTorch's) handing out / taking back a
  // block of memory it already holds (inside a kMalloc'd segment).
  kPoolBlockAllocate = 46,  // dst, size, stream
  kPoolBlockFree = 47,      // dst, stream
  // Work.
  kKernelLaunch = 50,  // stream, name, accesses
  kMemcpy = 51,        // stream, dst, src, size, copy_kind, is_async, [height, dst_pitch, src_pitch]
  kMemset = 52,        // stream, dst, size, is_async, [height, dst_pitch]
  kHostFunc = 53,      // stream, name, [id: the host function's run is observed (kHostFuncBegin)]
  kHostAccess = 54,    // accesses (host thread reads/writes memory)
  // Graphs.
  kStreamBeginCapture = 60,  // stream, flags (capture mode), [graph, deps: into that graph, after those nodes]
  kStreamEndCapture = 61,    // stream, graph
  kGraphCreate = 62,         // graph
  kGraphAddNode = 63,        // graph, node, node_op, deps, + fields of node_op
  kGraphAddDependency = 64,  // graph, node, deps (node depends on deps)
  kGraphInstantiate = 65,    // graph_exec, graph
  kGraphExecUpdate = 66,     // graph_exec, graph
  kGraphLaunch = 67,         // graph_exec, stream
  kGraphDestroy = 68,        // graph
  kGraphExecDestroy = 69,    // graph_exec
  // Host threads: how they are ordered with each other (the pthread
  // interposers of tracer/preload/, runtime/thread_epochs.h).
  kHostThreadOrder = 70,  // flags: 1 = each host thread has its own clock and threads are ordered only by
                          // kThreadAcquire; 0 (and a trace without this record) = what one host thread
                          // learns passes to every thread's later calls, in trace order
  kThreadRelease = 71,    // thread, id: the thread's epoch `id` ends here (others may be after it)
  kThreadAcquire = 72,    // thread, deps (thread << 32 | epoch each): the thread is now after those epochs
  // A host function (kHostFunc with the same id) running: on the thread the
  // CUDA driver runs it on, which is after the host function's place in its
  // stream's order (tracer/api_calls/host_func_trampoline.h).
  kHostFuncBegin = 73,    // thread, id: the thread is now after the stream's work before kHostFunc `id`
  kHostFuncEnd = 74,      // thread, id: the host function returned
  // Per-test scopes (runtime/scope_table.h, docs/SCOPES.md): the thread
  // opens a scope inside the one it is in, or closes its innermost.
  kScopeBegin = 75,       // thread, name (the scope's name)
  kScopeEnd = 76,         // thread
  // MPI (runtime/engine_mpi.cpp, docs/internals/mpi.md): the MPI library may
  // read/write the accesses' bytes from this call until the operation `id`
  // is seen complete (MPI standard, "Nonblocking Communication"); a blocking
  // call is both records around it.
  kMpiStart = 77,         // thread, id (the operation, unique while pending), api, accesses
  kMpiComplete = 78,      // thread, id, api: a completing MPI_Wait*/MPI_Test* (or the blocking call's return)
  kMaxOpCode = 79,
};

std::string_view OpCodeName(OpCode op);
// Returns kInvalid when the name is unknown.
OpCode OpCodeFromName(std::string_view name);

enum class AccessMode : uint8_t {
  kRead = 1,
  kWrite = 2,
  kReadWrite = 3,
  kUnknown = 4,  // a pointer argument whose use (read or write) is not known
};
std::string_view AccessModeName(AccessMode mode);
bool AccessModeFromName(std::string_view name, AccessMode* mode);
inline bool MayWrite(AccessMode m) { return m != AccessMode::kRead; }
// Two uses of the same bytes by one operation (the same range reached
// through two kernel parameters, a parameter used twice in a body): read and
// write make a write that also reads; anything with an unknown side stays
// unknown.
inline AccessMode MergeAccessModes(AccessMode a, AccessMode b) {
  if (a == b) return a;
  if (a == AccessMode::kUnknown || b == AccessMode::kUnknown) return AccessMode::kUnknown;
  return AccessMode::kReadWrite;
}

// Where memory lives, as recorded at allocation (cudaMalloc*, cudaHostAlloc, ...).
enum class MemoryKind : uint8_t {
  kDevice = 0,
  kPinnedHost = 1,      // cudaMallocHost / cudaHostAlloc
  kManaged = 2,         // cudaMallocManaged
  kRegisteredHost = 3,  // cudaHostRegister
  kPageableHost = 4,    // plain host memory (never allocated through CUDA)
  kAsyncPool = 5,       // cudaMallocAsync / pools
};
std::string_view MemoryKindName(MemoryKind kind);
bool MemoryKindFromName(std::string_view name, MemoryKind* kind);
inline bool IsPinnedHost(MemoryKind k) {
  return k == MemoryKind::kPinnedHost || k == MemoryKind::kRegisteredHost;
}
inline bool IsHostMemory(MemoryKind k) {
  return IsPinnedHost(k) || k == MemoryKind::kPageableHost;
}

// Same numbering as cudaMemcpyKind.
enum class CopyKind : uint8_t {
  kHostToHost = 0,
  kHostToDevice = 1,
  kDeviceToHost = 2,
  kDeviceToDevice = 3,
  kDefault = 4,  // inferred from the pointers (unified addressing)
};
std::string_view CopyKindName(CopyKind kind);
bool CopyKindFromName(std::string_view name, CopyKind* kind);

// Which bytes of an access are certain to be touched. A kernel's extent in
// fast mode is a guess (tracer/kernel_access/access_extent.h): it sees the
// pointer arguments, not the indexing.
enum class AccessCertainty : uint8_t {
  kExact = 0,      // observed: a copy, a memset, a framework op's tensor, `run --precise`
  kFirstByte = 1,  // a kernel's pointer parameter: the byte it points at, the rest a guess
  kNone = 2,       // a pointer found inside a by-value struct: the kernel may not use it at all
};
std::string_view AccessCertaintyName(AccessCertainty c);
bool AccessCertaintyFromName(std::string_view name, AccessCertainty* c);
// The more certain of two (the same range reached two ways).
inline AccessCertainty MoreCertain(AccessCertainty a, AccessCertainty b) { return a < b ? a : b; }

struct MemoryAccess {
  Address addr = 0;
  uint64_t size = 0;
  AccessMode mode = AccessMode::kUnknown;
  AccessCertainty certainty = AccessCertainty::kExact;
  friend bool operator==(const MemoryAccess&, const MemoryAccess&) = default;
};

struct StackFrame {
  StringId function = 0;
  StringId file = 0;
  uint32_t line = 0;
  uint64_t pc = 0;
  friend bool operator==(const StackFrame&, const StackFrame&) = default;
};

// The fixed-size fields of a record: plain data, which records travelling
// inside one process copy as bytes (tracer/analysis_worker.h).
struct TraceRecordFields {
  OpCode op = OpCode::kInvalid;
  OpCode node_op = OpCode::kInvalid;  // kGraphAddNode: what the node does
  ThreadId thread = 0;
  StackId stack = 0;
  StringId api = 0;           // the API called, e.g. "cudaMemcpyAsync"
  StringId name = 0;          // kernel name (demangled) or host function label
  StringId framework_op = 0;  // e.g. "aten::normal_" when known
  // The library whose own work this is (e.g. "nccl"): made inside one of its
  // API calls or on a thread it started, on memory and streams of its own.
  // What its call does to the program's memory comes as a record of the
  // program's own (an NCCL collective: a kernel launch with the collective's
  // accesses). 0 = the program's own.
  StringId library = 0;
  uint32_t id = 0;            // kDefineString / kDefineStack: the id defined
  uint32_t flags = 0;         // stream/event flags, capture mode
  int32_t device = -1;        // explicit device; -1 = the thread's current device
  int32_t result = 0;         // return code of queries (0 = cudaSuccess)
  int32_t priority = 0;
  bool is_async = false;
  // The tracer's own, never in a trace: `accesses` still hold a launch's
  // argument words (size 0 each) for the analysis worker to match against
  // the allocations (tracer/record_resolver.h).
  bool pointer_words = false;
  // The tracer's own, never in a trace: the thread made this record with no
  // framework op open, and the worker still has some open for it
  // (tracer/frameworks/framework_ops.h): it closes them.
  bool closes_framework_ops = false;
  // The tracer's own, never in a trace: the program's side guarded host
  // pages for this operation (tracer/host/guard_table.h); the worker tells
  // the guards which device work it became.
  bool guards_host_pages = false;
  // The tracer's own, never in a trace: a launch whose device accesses the
  // precise front-end collects (tracer/sanitizer/); the worker waits for
  // them and puts them in `accesses` before the record is resolved.
  uint32_t device_access_ticket = 0;
  MemoryKind memory_kind = MemoryKind::kDevice;
  CopyKind copy_kind = CopyKind::kDefault;
  Handle stream = 0;
  Handle event = 0;
  Handle event2 = 0;
  Handle graph = 0;
  Handle graph_exec = 0;
  Handle node = 0;
  Address dst = 0;
  Address src = 0;
  uint64_t size = 0;      // bytes (per row for 2D/3D copies)
  uint64_t height = 0;    // rows of a 2D/3D copy or memset (0 or 1 = flat)
  uint64_t dst_pitch = 0;
  uint64_t src_pitch = 0;
  // Host time since the trace started, for timelines. Inside the tracer,
  // until the analysis worker takes the record, a raw count of the host's
  // clock (tracer/host_threads/host_clock.h).
  uint64_t timestamp_ns = 0;
  friend bool operator==(const TraceRecordFields&, const TraceRecordFields&) = default;
};

static_assert(std::is_trivially_copyable_v<TraceRecordFields>);

struct TraceRecord : TraceRecordFields {
  std::vector<MemoryAccess> accesses;
  std::vector<Handle> deps;       // graph node dependencies
  std::vector<StackFrame> frames; // kDefineStack
  std::string text;               // kDefineString / kProcessInfo / kThreadName

  // Resets every field while keeping vector capacity (decode loops reuse one record).
  void Clear() {
    static_cast<TraceRecordFields&>(*this) = TraceRecordFields{};
    accesses.clear();
    deps.clear();
    frames.clear();
    text.clear();
  }
  friend bool operator==(const TraceRecord&, const TraceRecord&) = default;
};

// A kDefineString record: string `id` is `text` from here on.
inline TraceRecord StringDefinition(uint32_t id, std::string text) {
  TraceRecord r;
  r.op = OpCode::kDefineString;
  r.id = id;
  r.text = std::move(text);
  return r;
}

}  // namespace streamcheck
