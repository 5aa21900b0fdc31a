// The PyTorch plugin (framework_hooks.h): loaded by the tracer into processes
// that have libtorch_cuda.so. PyTorch's own hooks feed it:
//   * an op observer: each outermost aten op's name, the bytes of each CUDA
//     tensor argument (views exact: storage offset, sizes, strides) with the
//     op schema's word on which arguments it writes (`Tensor(a!)`), and, for
//     the ops the program called, its Python stack. By default a boxed
//     fallback on a dispatch key of its own (the dispatch-key observer, near
//     the end); with STREAMCHECK_TORCH_OBSERVER=record-function, or where
//     PyTorch refuses that, a RecordFunction callback;
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
#include <torch/library.h>

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
#include "tracer/frameworks/pytorch/python_stack.h"
#include "tracer/debug/tracer_profile.h"

namespace streamcheck::pytorch {
namespace {

const StreamcheckFrameworkHooks* g_hooks = nullptr;

// STREAMCHECK_DEBUG=profile: the plugin's share of the time, printed at exit.
enum class PluginPhase { kOpStart, kPythonStack, kAllocatorEvent, kCount };
tracer::PhaseProfile<PluginPhase> g_profile("streamcheck[profile] plugin:",
                                            {"op observer", "python stacks", "allocator events"});

uint32_t TimedPythonStack(bool take_gil) {
  const uint64_t start = g_profile.Now();
  const uint32_t stack = CurrentPythonStack(*g_hooks, take_gil);
  g_profile.Add(PluginPhase::kPythonStack, start);
  return stack;
}

// What the schema of one op says: its name's id and which arguments it writes.
struct OpInfo {
  uint32_t name = 0;
  bool dispatcher_op = false;  // a registered schema (not a named range such as autograd's wrappers)
  bool takes_device = false;   // a Device argument: it may make CUDA tensors from no CUDA tensor (to, empty)
  std::vector<bool> writes;    // by argument index
  // How many ops it nested when it last ran with them passed over (-1: not
  // yet known); decides how the next run hides them (OuterOp below). Any
  // thread may write it: a hint, relaxed.
  mutable std::atomic<int> nested_ops{-1};
};

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

// The bytes a strided tensor covers: from the lowest to one past the highest
// element it can address (a bounding range for views with gaps).
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

// Calls f with each tensor an argument holds.
template <typename F>
void ForEachTensor(const c10::IValue& v, F&& f) {
  if (v.isTensor()) {
    f(v.toTensor());
  } else if (v.isTensorList()) {
    for (const at::Tensor& t : v.toTensorList().vec()) f(t);
  } else if (v.isList()) {  // Tensor?[] (indexing)
    for (const c10::IValue& element : v.toListRef())
      if (element.isTensor()) f(element.toTensor());
  }
}

void AddRegions(const c10::IValue& v, bool writes, std::vector<StreamcheckTensorRegion>* regions) {
  ForEachTensor(v, [&](const at::Tensor& t) {
    StreamcheckTensorRegion r;
    if (!t.defined() || !t.is_cuda() || !BytesOf(t, &r)) return;
    r.writes = writes ? 1 : 0;
    regions->push_back(r);
  });
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
bool g_observe_nested_ops = false;
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

// An op or backward node starts: the outermost on a thread gets `stack`.
void BeginOp(uint32_t name, uint32_t stack, const std::vector<StreamcheckTensorRegion>& regions) {
  if (t_depth++ == 0 || !HasStack(t_outer_stack)) t_outer_stack = stack;
  g_hooks->op_begin(name, stack, regions.data(), regions.size());
}

// An op or backward node begun with BeginOp ends.
void EndOp() {
  if (t_depth > 0) --t_depth;
  g_hooks->op_end();
}

// The autograd nodes made since `first_sequence_nr` by an outermost op and
// the ops nested in it, which were not observed: each gets the op's stack.
void NoteNodesMadeSince(uint64_t first_sequence_nr) {
  const uint64_t end = at::sequence_number::peek();
  constexpr uint64_t kMostNoted = 4096;  // an op building a larger graph notes its first nodes
  for (uint64_t n = first_sequence_nr; n < end && n - first_sequence_nr < kMostNoted; ++n)
    ForwardStacksOf().Note(static_cast<int64_t>(n), t_outer_stack);
}

// An observed op begins; `arguments` in its schema's order.
void BeginObservedOp(const OpInfo& info, c10::ArrayRef<const c10::IValue> arguments) {
  thread_local std::vector<StreamcheckTensorRegion> regions;  // the hook copies them: reused, no allocation per op
  regions.clear();
  for (size_t i = 0; i < arguments.size(); ++i)
    AddRegions(arguments[i], i < info.writes.size() && info.writes[i], &regions);
  // The ops the program called carry its Python stack; nested ops inherit it.
  BeginOp(info.name, t_depth == 0 ? OuterStack(/*take_gil=*/true) : 0, regions);
}

// STREAMCHECK_DEBUG=observer-floor: observers that return at once, to measure
// what PyTorch's op observation with inputs costs by itself.
bool g_observer_floor = false;

std::unique_ptr<at::ObserverContext> OnOpStart(const at::RecordFunction& fn) {
  if (g_observer_floor) return nullptr;
  if (t_outer_op.depth != 0) {  // nested in the outer op, which says it all (above)
    PassOverNestedOp();
    return nullptr;
  }
  const uint64_t start = g_profile.Now();
  AttachAllocatorTracker();
  const OpInfo& info = InfoOf(fn);
  BeginObservedOp(info, fn.inputs());
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

// The dispatch-key observer: a boxed fallback on a dispatch key that the
// plugin includes in each thread's dispatch key set sees every op the
// program calls, boxed once, and takes its key out of the set for the op's
// duration, so the ops nested in it dispatch as they would without
// streamcheck. RecordFunction then has no FUNCTION-scope callback of ours,
// and PyTorch spends nothing per op on observing for us: with it the
// transformer step measured x0.916 [0.901, 0.940] of the RecordFunction
// observer and the eager loop x0.979 (tests/gpu/bench/results/README.md).
// The key is TESTING_ONLY_GenericMode, the one functionality key above
// autograd that PyTorch itself registers nothing for; where registering on
// it fails (another tool took it), the RecordFunction observer is used.
// A thread's ops reach it from the thread's first CUDA call the tracer
// records (streamcheck_framework_thread_started), or from the start on the
// thread that initialized CUDA and on autograd's threads, which take the
// caller's thread-local state.
constexpr c10::DispatchKey kObserverKey = c10::DispatchKey::TESTING_ONLY_GenericMode;
bool g_dispatch_observer = false;

// Ends the op begun in OnDispatchedOp, however the op left (an exception too).
struct DispatchedOpEnd {
  uint64_t first_sequence_nr;
  ~DispatchedOpEnd() {
    NoteNodesMadeSince(first_sequence_nr);
    EndOp();
  }
};

// An op with no CUDA tensor among its arguments and no device to make one
// on does no CUDA work inside (AdamW's aten::item on each parameter's step
// count, a CPU tensor: a hundred calls a step of the DDP benchmark's model),
// and unless one of its tensors may lie in guarded host memory (pinned: a
// CPU op filling a pinned staging tensor is a host access that findings name
// after the op) no record ever takes its name or stack: it is not observed,
// and neither are its nested ops (a CUDA tensor they made would need a device).
bool NeedsNoScope(const OpInfo& info, c10::DispatchKeySet keys, c10::ArrayRef<const c10::IValue> arguments) {
  if (info.takes_device || keys.has_backend(c10::BackendComponent::CUDABit)) return false;
  bool host_guarded = false;
  for (const c10::IValue& v : arguments)
    ForEachTensor(v, [&](const at::Tensor& t) {
      StreamcheckTensorRegion r;
      host_guarded = host_guarded || (BytesOf(t, &r) && g_hooks->may_guard_host(r.begin, r.end) != 0);
    });
  return !host_guarded;
}

void OnDispatchedOp(const c10::OperatorHandle& op, c10::DispatchKeySet keys, torch::jit::Stack* stack) {
  const c10::DispatchKeySet below(c10::DispatchKeySet::FULL_AFTER, kObserverKey);
  std::optional<c10::impl::ExcludeDispatchKeyGuard> nested;  // the nested ops go by unseen
  if (!g_observe_nested_ops) nested.emplace(kObserverKey);
  if (g_observer_floor) return op.redispatchBoxed(keys & below, stack);
  const uint64_t start = g_profile.Now();
  AttachAllocatorTracker();
  const OpInfo& info = InfoOf(op.schema());
  const size_t count = std::min(op.schema().arguments().size(), stack->size());  // the stack's top
  const c10::ArrayRef<const c10::IValue> arguments(stack->data() + stack->size() - count, count);
  if (!g_observe_nested_ops && NeedsNoScope(info, keys, arguments)) return op.redispatchBoxed(keys & below, stack);
  BeginObservedOp(info, arguments);
  const DispatchedOpEnd end{at::sequence_number::peek()};
  g_profile.Add(PluginPhase::kOpStart, start);
  op.redispatchBoxed(keys & below, stack);
}

// Ops that only make a view, and whose backward only makes a view too
// (derivatives.yaml: transpose's is a transpose, unsqueeze's a squeeze):
// nothing inside them, forward or backward, launches, copies or allocates,
// so no record ever takes their name or Python stack. They fall through the
// observer's key: the dispatcher skips it for them without boxing their
// arguments, which for the DDP benchmark's step (some 140 such ops, most on
// autograd's threads inside backward nodes) was most of what observing them
// cost. Not aten::view, reshape, expand, select, slice, as_strided: their
// backward may copy (a reshape of a strided gradient) or allocate, and those
// kernels take their forward op's stack from the op's observation.
constexpr const char* kPureViewOps[] = {"transpose.int", "t",           "permute", "unsqueeze", "squeeze",
                                        "squeeze.dim",   "squeeze.dims", "alias",   "detach"};

void LetPureViewsFallThrough() try {
  static auto* views = new torch::Library(torch::Library::IMPL, "aten", kObserverKey, __FILE__, __LINE__);
  for (const char* name : kPureViewOps) views->impl(name, torch::CppFunction::makeFallthrough());
} catch (const std::exception& e) {
  // Observed, as every other op: costs time, loses nothing.
  std::fprintf(stderr, "streamcheck: view ops are observed in full (%s)\n", e.what());
}

// Registers the fallback and includes the key on the calling thread; false
// (with why) where PyTorch refuses it, and the RecordFunction observer is used.
bool AttachDispatchObserver(std::string* why) try {
  static auto* library = new torch::Library(torch::Library::IMPL, "_", kObserverKey, __FILE__, __LINE__);
  library->fallback(torch::CppFunction::makeFromBoxedFunction<&OnDispatchedOp>());
  if (!g_observe_nested_ops) LetPureViewsFallThrough();
  c10::impl::tls_set_dispatch_key_included(kObserverKey, true);
  return true;
} catch (const std::exception& e) {
  *why = e.what();
  return false;
}

}  // namespace
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
  const char* all_ops = std::getenv("STREAMCHECK_TORCH_ALL_OPS");
  g_observe_nested_ops = all_ops != nullptr && std::string(all_ops) == "1";
  if (g_profile.on())
    std::atexit([] {
      g_profile.Print();
      const PythonStackCounts counts = CurrentPythonStackCounts();
      std::fprintf(stderr, "streamcheck[profile] plugin: python stacks %llu read in place, %llu through the API\n",
                   static_cast<unsigned long long>(counts.in_place),
                   static_cast<unsigned long long>(counts.through_api));
    });
  const char* observer = std::getenv("STREAMCHECK_TORCH_OBSERVER");
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
