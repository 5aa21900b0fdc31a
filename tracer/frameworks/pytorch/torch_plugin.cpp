// The PyTorch plugin (framework_hooks.h): loaded by the tracer into processes
// that have libtorch_cuda.so. PyTorch's own hooks feed it:
//   * an op observer: each outermost aten op's name, the bytes of each CUDA
//     tensor argument (views exact: storage offset, sizes, strides) with the
//     op schema's word on which arguments it writes (`Tensor(a!)`), and, for
//     the ops the program called, its Python stack. By default kernels on a
//     dispatch key of its own (dispatch_key_observer.cpp); with
//     STREAMCHECK_TORCH_OBSERVER=record-function, or where PyTorch refuses
//     that, a RecordFunction callback (here);
//   * a RecordFunction callback for autograd's backward nodes, which names the
//     work inside each after the node and gives it its forward op's stack;
//   * the caching allocator's trace tracker: blocks handed to a stream and
//     given back (FREE_COMPLETED: after record_stream's events completed).
// Built only where PyTorch's headers are (tracer/frameworks/pytorch/CMakeLists.txt).
#include <ATen/SequenceNumber.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/record_function.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <c10/cuda/CUDACachingAllocator.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tracer/frameworks/framework_hooks.h"
#include "tracer/frameworks/pytorch/dispatch_key_observer.h"
#include "tracer/frameworks/pytorch/observer_core.h"
#include "tracer/frameworks/pytorch/python_stack.h"
#include "tracer/debug/tracer_profile.h"
#include "tracer/environment.h"

namespace streamcheck::pytorch {

const StreamcheckFrameworkHooks* g_hooks = nullptr;
tracer::PhaseProfile<PluginPhase> g_profile("streamcheck[profile] plugin:",
                                            {"op observer", "python stacks", "allocator events"});
bool g_observe_nested_ops = false;
bool g_observer_floor = false;

namespace {

uint32_t TimedPythonStack(bool take_gil) {
  const uint64_t start = g_profile.Now();
  const uint32_t stack = CurrentPythonStack(*g_hooks, take_gil);
  g_profile.Add(PluginPhase::kPythonStack, start);
  return stack;
}

struct OpInfoCache {
  std::mutex mutex;
  // Keyed by RecordFunction::name(), which for a dispatcher op points into its
  // registered schema (so one key per overload); ranges named by other
  // strings are looked up by text.
  std::unordered_map<const char*, std::unique_ptr<OpInfo>> by_schema_name;
  std::unordered_map<std::string, std::unique_ptr<OpInfo>> by_text;
};
OpInfoCache& Infos() {
  static auto* cache = new OpInfoCache;  // lives past exit handlers
  return *cache;
}

// A dispatcher op's info, from its schema; `key` is its name's registered text.
std::unique_ptr<OpInfo> DispatcherOpInfo(const char* key, const c10::FunctionSchema& schema) {
  auto info = std::make_unique<OpInfo>();
  info->name = g_hooks->intern_string(key);
  info->dispatcher_op = true;
  for (const c10::Argument& a : schema.arguments()) {
    info->writes.push_back(a.alias_info() != nullptr && a.alias_info()->isWrite());
    c10::TypePtr type = a.real_type();
    if (const auto optional = type->cast<c10::OptionalType>()) type = optional->getElementType();
    info->takes_device = info->takes_device || type->kind() == c10::TypeKind::DeviceObjType;
  }
  return info;
}

const OpInfo& InfoOf(const at::RecordFunction& fn) {
  thread_local std::unordered_map<const char*, const OpInfo*> local;
  const char* key = fn.name();
  if (auto it = local.find(key); it != local.end()) return *it->second;
  OpInfoCache& cache = Infos();
  std::lock_guard<std::mutex> lock(cache.mutex);
  if (auto it = cache.by_schema_name.find(key); it != cache.by_schema_name.end()) {
    local.emplace(key, it->second.get());
    return *it->second;
  }
  // Ranges named by other strings (not cached per thread: the key's address is not stable).
  if (auto it = cache.by_text.find(key); it != cache.by_text.end()) return *it->second;
  const std::optional<c10::OperatorName> op = fn.operator_name();
  std::optional<c10::OperatorHandle> handle;
  if (op) handle = c10::Dispatcher::singleton().findSchema(*op);
  if (handle && handle->schema().name().c_str() == key) {
    const OpInfo& stored = *(cache.by_schema_name[key] = DispatcherOpInfo(key, handle->schema()));
    local.emplace(key, &stored);
    return stored;
  }
  auto info = std::make_unique<OpInfo>();
  info->name = g_hooks->intern_string(key);
  return *(cache.by_text[key] = std::move(info));
}

// The Python stacks of forward ops by autograd sequence number. The backward
// pass runs on autograd's device threads, which have no Python frames; each
// backward node carries the number of the forward op that made it, so its
// kernels get the user's line of that op. A direct-mapped table: a backward
// run more than kSlots forward ops after its forward op finds no stack and
// falls back to a native one. Every forward op notes its stack, so a slot is
// one atomic word (sequence number and stack packed), not a lock.
class ForwardStacks {
 public:
  void Note(int64_t sequence_nr, uint32_t stack) {
    if (sequence_nr < 0 || stack == 0 || stack > kStackMask || uint64_t(sequence_nr) >= kSequenceLimit) return;
    slots_[sequence_nr & (kSlots - 1)].store(uint64_t(sequence_nr) << kStackBits | stack, std::memory_order_relaxed);
  }
  uint32_t Find(int64_t sequence_nr) const {
    if (sequence_nr < 0 || uint64_t(sequence_nr) >= kSequenceLimit) return 0;
    const uint64_t slot = slots_[sequence_nr & (kSlots - 1)].load(std::memory_order_relaxed);
    return slot >> kStackBits == uint64_t(sequence_nr) ? uint32_t(slot & kStackMask) : 0;
  }

 private:
  static constexpr size_t kSlots = size_t{1} << 16;
  // 24 bits of stack id (16M distinct Python stacks), 40 of sequence number.
  static constexpr unsigned kStackBits = 24;
  static constexpr uint64_t kStackMask = (uint64_t{1} << kStackBits) - 1;
  static constexpr uint64_t kSequenceLimit = uint64_t{1} << (64 - kStackBits);
  std::unique_ptr<std::atomic<uint64_t>[]> slots_{new std::atomic<uint64_t>[kSlots]()};
};
ForwardStacks& ForwardStacksOf() {
  static auto* stacks = new ForwardStacks;  // lives past exit handlers
  return *stacks;
}

thread_local int t_depth = 0;  // ops open on this thread (ours to count: the tracer's are its own)
thread_local uint32_t t_outer_stack = 0;  // the stack of this thread's outermost open op
// This thread has run a backward node: one of autograd's engine threads (or
// the caller's thread during backward). Where such a thread finds no Python
// stack, its native frames are the engine's: STREAMCHECK_STACK_NONE spares
// the tracer capturing them (several microseconds each, cold).
thread_local bool t_runs_backward = false;

bool HasStack(uint32_t stack) { return stack != 0 && stack != STREAMCHECK_STACK_NONE; }

// The stack for work outside an op, or for an outermost op: the thread's
// Python stack, else none worth capturing on autograd's threads, else 0 (the
// tracer captures a native one: a C++ program's own frames).
uint32_t OuterStack(bool take_gil) {
  const uint32_t stack = TimedPythonStack(take_gil);
  return stack == 0 && t_runs_backward ? STREAMCHECK_STACK_NONE : stack;
}

// The outermost dispatcher op on a thread already says all its nested ops
// can (aten::linear's aten::t and aten::addmm, the ops inside a backward
// node): the work inside is attributed to it, its arguments' regions and
// schema say what it reads and writes, and memory allocated inside it is
// written. So while one is open the RecordFunction observer does not look at
// the nested ops, in the cheaper of two ways for that op:
//   * passed over: the observer returns at once for each, but PyTorch has
//     boxed its arguments for it already;
//   * hidden: RecordFunction is switched off on the thread for the outer
//     op's duration (it also travels to intra-op workers), so nothing is
//     boxed, but switching it off and on makes PyTorch rebuild the thread's
//     callback lists twice, under a lock, which costs about as much as
//     boxing one or two nested ops (tests/gpu/bench/results/README.md).
// An op is hidden from the second run on when its first run (or its last
// passed-over run) nested kHideFromNestedOps ops or more: aten::linear (t
// and addmm) is hidden, aten::matmul over 2-D tensors (mm alone) passed over.
// The autograd sequence numbers the nested ops took are noted at the outer
// op's end either way, so backward nodes still find its Python stack.
// STREAMCHECK_TORCH_ALL_OPS=1 observes every op in full, with either
// observer (hiding ops from RecordFunction also hides them from a profiler
// the program runs); STREAMCHECK_DEBUG=hide-nested-ops and
// pass-over-nested-ops fix one way for every op (to measure the two).
constexpr int kHideFromNestedOps = 2;
enum class NestedOps { kByOp, kHide, kPassOver } g_nested_ops = NestedOps::kByOp;
struct OuterOp {
  int depth = 0;  // t_depth inside it; 0: no outer dispatcher op is open
  uint64_t first_sequence_nr = 0;
  const OpInfo* info = nullptr;
  bool hides = false;  // RecordFunction is off on this thread until it ends
  int nested_open = 0;  // passed-over nested ops begun and not yet ended
  int nested = 0;       // passed-over nested ops begun in all
};
thread_local OuterOp t_outer_op;

bool HidesNestedOps(const OpInfo& info) {
  switch (g_nested_ops) {
    case NestedOps::kHide: return true;
    case NestedOps::kPassOver: return false;
    case NestedOps::kByOp: break;
  }
  return info.nested_ops.load(std::memory_order_relaxed) >= kHideFromNestedOps;
}

// A nested op (or a backward node run inside the outer op) begins: OnOpEnd
// passes over its end.
void PassOverNestedOp() {
  ++t_outer_op.nested_open;
  ++t_outer_op.nested;
}

// The caching allocator's tracker; attached once the allocator exists (it is
// created after cuInit, when the tracer loads us, so attaching then is lost).
void OnAllocatorTrace(const c10::cuda::CUDACachingAllocator::TraceEntry& e) {
  using Action = c10::cuda::CUDACachingAllocator::TraceEntry::Action;
  StreamcheckBlockEvent event;
  if (e.action_ == Action::ALLOC) event = STREAMCHECK_BLOCK_ALLOCATED;
  else if (e.action_ == Action::FREE_COMPLETED) event = STREAMCHECK_BLOCK_FREED;
  else return;
  const uint64_t start = g_profile.Now();
  // Inside an op the block takes the op's stack, and a free's stack is in no
  // finding (a reuse is reported at the allocation): no walk. Under the
  // allocator's lock the GIL may be taken only if already held.
  const bool walk = t_depth == 0 && event == STREAMCHECK_BLOCK_ALLOCATED;
  const uint32_t stack = walk ? OuterStack(/*take_gil=*/false) : 0;
  g_hooks->block_event(event, static_cast<uint64_t>(e.addr_), static_cast<uint64_t>(e.size_),
                       reinterpret_cast<uint64_t>(e.stream_), static_cast<int>(e.device_), stack);
  g_profile.Add(PluginPhase::kAllocatorEvent, start);
}

// STREAMCHECK_DEBUG=no-block-events: the allocator's tracker is not attached
// (what block events cost; blocks are then seen only as their segments).
bool g_block_events = true;

// An op or backward node starts: the outermost on a thread gets `stack`.
void BeginOp(uint32_t name, uint32_t stack, const std::vector<StreamcheckTensorRegion>& regions) {
  if (t_depth++ == 0 || !HasStack(t_outer_stack)) t_outer_stack = stack;
  g_hooks->op_begin(name, stack, regions.data(), regions.size());
}

std::unique_ptr<at::ObserverContext> OnOpStart(const at::RecordFunction& fn) {
  if (g_observer_floor) return nullptr;
  if (t_outer_op.depth != 0) {  // nested in the outer op, which says it all (above)
    PassOverNestedOp();
    return nullptr;
  }
  const uint64_t start = g_profile.Now();
  AttachAllocatorTracker();
  const OpInfo& info = InfoOf(fn);
  BeginObservedOp(info, [&](TensorSink sink) { ForEachArgumentTensor(fn.inputs(), sink); });
  ForwardStacksOf().Note(fn.seqNr(), t_outer_stack);
  if (info.dispatcher_op && !g_observe_nested_ops) {
    t_outer_op = {t_depth, at::sequence_number::peek(), &info, HidesNestedOps(info)};
    if (t_outer_op.hides) at::enableRecordFunction(false);
  }
  g_profile.Add(PluginPhase::kOpStart, start);
  return nullptr;
}

// A backward node (MmBackward0, ...) starts: the ops it runs are named after
// it and carry the stack of the forward op it differentiates.
std::unique_ptr<at::ObserverContext> OnBackwardStart(const at::RecordFunction& fn) {
  if (g_observer_floor) return nullptr;
  if (t_outer_op.depth != 0) {  // run inside an op: part of it, like a nested op
    PassOverNestedOp();
    return nullptr;
  }
  thread_local std::unordered_map<std::string, uint32_t> names;
  auto [it, inserted] = names.try_emplace(fn.name(), 0);
  if (inserted) it->second = g_hooks->intern_string(fn.name());
  // Autograd's engine wraps each node in an op of its own
  // (autograd::engine::evaluate_function: ...), which has no stack there.
  uint32_t stack = 0;
  if (t_depth == 0 || !HasStack(t_outer_stack)) stack = ForwardStacksOf().Find(fn.seqNr());
  t_runs_backward = true;
  if (stack == 0 && t_depth == 0) stack = OuterStack(/*take_gil=*/true);  // a backward run on the caller's thread
  // A node with no forward stack (AccumulateGrad, or a forward op too old
  // for the table) on an engine thread: its native frames are the engine's.
  if (stack == 0 && !HasStack(t_outer_stack)) stack = STREAMCHECK_STACK_NONE;
  BeginOp(it->second, stack, {});
  return nullptr;
}

void OnOpEnd(const at::RecordFunction&, at::ObserverContext*) {
  if (g_observer_floor) return;
  if (t_outer_op.nested_open > 0) {  // a nested op passed over: ops end innermost first
    --t_outer_op.nested_open;
    return;
  }
  if (t_outer_op.depth != 0 && t_outer_op.depth == t_depth) {
    if (t_outer_op.hides) at::enableRecordFunction(true);
    else t_outer_op.info->nested_ops.store(t_outer_op.nested, std::memory_order_relaxed);
    NoteNodesMadeSince(t_outer_op.first_sequence_nr);
    t_outer_op = {};
  }
  EndOp();
}

}  // namespace

// The info of the op `schema` describes (the dispatch-key observer's lookup).
const OpInfo& InfoOf(const c10::FunctionSchema& schema) {
  thread_local std::unordered_map<const char*, const OpInfo*> local;
  const char* key = schema.name().c_str();  // the registered schema's: one per overload, stable
  if (auto it = local.find(key); it != local.end()) return *it->second;
  OpInfoCache& cache = Infos();
  std::lock_guard<std::mutex> lock(cache.mutex);
  std::unique_ptr<OpInfo>& slot = cache.by_schema_name[key];
  if (slot == nullptr) slot = DispatcherOpInfo(key, schema);
  local.emplace(key, slot.get());
  return *slot;
}

bool BytesOf(const at::Tensor& t, StreamcheckTensorRegion* out) try {
  if (!t.defined() || t.layout() != c10::kStrided || !t.has_storage() || t.numel() == 0) return false;
  const auto base = reinterpret_cast<uint64_t>(t.const_data_ptr());
  const int64_t item = static_cast<int64_t>(t.itemsize());
  int64_t low = 0, high = 0;
  const auto sizes = t.sizes(), strides = t.strides();
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] <= 1) continue;
    const int64_t span = strides[d] * (sizes[d] - 1);
    (span < 0 ? low : high) += span;
  }
  out->begin = base + low * item;
  out->end = base + high * item + item;
  return true;
} catch (const std::exception&) {
  // Tensors without real data (symbolic shapes, fake or functional wrappers)
  // throw from these accessors: they touch no memory we could see.
  return false;
}

void ForEachArgumentTensor(c10::ArrayRef<const c10::IValue> arguments, TensorSink sink) {
  for (size_t i = 0; i < arguments.size(); ++i) {
    const c10::IValue& v = arguments[i];
    if (v.isTensor()) {
      sink(v.toTensor(), i);
    } else if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorList().vec()) sink(t, i);
    } else if (v.isList()) {  // Tensor?[] (indexing)
      for (const c10::IValue& element : v.toListRef())
        if (element.isTensor()) sink(element.toTensor(), i);
    }
  }
}

void AttachAllocatorTracker() {
  if (!g_block_events) return;
  static std::atomic<bool> attached{false};
  if (attached.load(std::memory_order_relaxed)) return;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  auto* allocator = c10::cuda::CUDACachingAllocator::get();
  if (attached || allocator == nullptr || !allocator->initialized()) return;
  attached = true;
  if (allocator->name() != "native") {
    std::fprintf(stderr,
                 "streamcheck: PyTorch's CUDA allocator is '%s', which has no trace hook: block reuse between "
                 "streams is checked only at the level of the CUDA allocation calls it makes\n",
                 allocator->name().c_str());
    return;
  }
  c10::cuda::CUDACachingAllocator::attachAllocatorTraceTracker(OnAllocatorTrace);
}

void BeginObservedOp(const OpInfo& info, TensorSource tensors) {
  thread_local std::vector<StreamcheckTensorRegion> regions;  // the hook copies them: reused, no allocation per op
  regions.clear();
  tensors([&](const at::Tensor& t, size_t argument) {
    StreamcheckTensorRegion r;
    if (!t.defined() || !t.is_cuda() || !BytesOf(t, &r)) return;
    r.writes = argument < info.writes.size() && info.writes[argument] ? 1 : 0;
    regions.push_back(r);
  });
  // The ops the program called carry its Python stack; nested ops inherit it.
  BeginOp(info.name, t_depth == 0 ? OuterStack(/*take_gil=*/true) : 0, regions);
}

void EndOp() {
  if (t_depth > 0) --t_depth;
  g_hooks->op_end();
}

void NoteNodesMadeSince(uint64_t first_sequence_nr) {
  const uint64_t end = at::sequence_number::peek();
  constexpr uint64_t kMostNoted = 4096;  // an op building a larger graph notes its first nodes
  for (uint64_t n = first_sequence_nr; n < end && n - first_sequence_nr < kMostNoted; ++n)
    ForwardStacksOf().Note(static_cast<int64_t>(n), t_outer_stack);
}

}  // namespace streamcheck::pytorch

// Called by the tracer on each thread's first CUDA call it records: from then
// on the thread's ops reach the dispatch-key observer (threads autograd runs
// work on get the key with the rest of the caller's thread-local state).
extern "C" __attribute__((visibility("default"))) void streamcheck_framework_thread_started(void) {
  if (streamcheck::pytorch::g_dispatch_observer)
    c10::impl::tls_set_dispatch_key_included(streamcheck::pytorch::kObserverKey, true);
}

// The calling thread's Python stack, for a host access the tracer's guard
// pages saw outside any op (numpy reading a tensor's memory, say), called
// from the fault handler. A stack seen before is read in place; a new one
// is walked under the GIL, taken if need be: numpy's loops release it, and
// the faulting instruction is such a loop's access to pinned memory, never
// CPython's own code, so the thread holds none of the interpreter's locks
// (it waits for the GIL like any thread coming back from C code). A thread
// Python does not know (a C++ thread pool's) has no stack.
extern "C" __attribute__((visibility("default"))) uint32_t streamcheck_framework_current_stack(void) {
  if (streamcheck::pytorch::g_hooks == nullptr) return 0;
  return streamcheck::pytorch::CurrentPythonStack(*streamcheck::pytorch::g_hooks, /*take_gil=*/true);
}

extern "C" __attribute__((visibility("default"))) int streamcheck_framework_attach(
    const StreamcheckFrameworkHooks* hooks, const char** why) {
  using namespace streamcheck::pytorch;
  if (hooks == nullptr || hooks->version != STREAMCHECK_FRAMEWORK_HOOKS_VERSION) {
    *why = "the tracer and the PyTorch plugin come from different streamcheck builds";
    return 1;
  }
  g_hooks = hooks;
  using streamcheck::tracer::DebugFlag;
  using streamcheck::tracer::DebugSwitch;
  g_observer_floor = DebugFlag(DebugSwitch::kObserverFloor);
  g_block_events = !DebugFlag(DebugSwitch::kNoBlockEvents);
  if (DebugFlag(DebugSwitch::kHideNestedOps)) g_nested_ops = NestedOps::kHide;
  if (DebugFlag(DebugSwitch::kPassOverNestedOps)) g_nested_ops = NestedOps::kPassOver;
  const char* all_ops = std::getenv(streamcheck::environment::kTorchAllOps);
  g_observe_nested_ops = all_ops != nullptr && std::string(all_ops) == "1";
  if (g_profile.on())
    std::atexit([] {
      g_profile.Print();
      const PythonStackCounts counts = CurrentPythonStackCounts();
      std::fprintf(stderr, "streamcheck[profile] plugin: python stacks %llu read in place, %llu through the API\n",
                   static_cast<unsigned long long>(counts.in_place),
                   static_cast<unsigned long long>(counts.through_api));
    });
  const char* observer = std::getenv(streamcheck::environment::kTorchObserver);
  if (observer == nullptr || std::string(observer) != "record-function") {
    std::string refused;
    g_dispatch_observer = AttachDispatchObserver(&refused);
    if (!g_dispatch_observer)
      std::fprintf(stderr,
                   "streamcheck: PyTorch refused the dispatch-key op observer (%s); ops are observed through "
                   "RecordFunction, which costs more per op\n",
                   refused.c_str());
  }
  if (!g_dispatch_observer)
    at::addGlobalCallback(at::RecordFunctionCallback(OnOpStart, OnOpEnd)
                              .needsInputs(true)
                              .scopes({at::RecordScope::FUNCTION}));
  // No inputs: a node's are gradients, which its ops see themselves.
  at::addGlobalCallback(
      at::RecordFunctionCallback(OnBackwardStart, OnOpEnd).scopes({at::RecordScope::BACKWARD_FUNCTION}));
  return 0;
}
