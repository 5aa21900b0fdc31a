// The PyTorch plugin (framework_hooks.h): loaded by the tracer into processes
// that have libtorch_cuda.so. Two of PyTorch's own hooks feed it:
//   * an op observer (RecordFunction): each aten op's name, the bytes of each
//     CUDA tensor argument (views exact: storage offset, sizes, strides) with
//     the op schema's word on which arguments it writes (`Tensor(a!)`), and,
//     for the ops the program called, its Python stack;
//   * the caching allocator's trace tracker: blocks handed to a stream and
//     given back (FREE_COMPLETED: after record_stream's events completed).
// Built only where PyTorch's headers are (tracer/pytorch/CMakeLists.txt).
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/record_function.h>
#include <c10/cuda/CUDACachingAllocator.h>

#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "tracer/framework_hooks.h"
#include "tracer/pytorch/python_stack.h"

namespace streamcheck::pytorch {
namespace {

const StreamcheckFrameworkHooks* g_hooks = nullptr;

// What the schema of one op says: its name's id and which arguments it writes.
struct OpInfo {
  uint32_t name = 0;
  std::vector<bool> writes;  // by argument index
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

const OpInfo& InfoOf(const at::RecordFunction& fn) {
  thread_local std::unordered_map<const char*, const OpInfo*> local;
  const char* key = fn.name();
  if (auto it = local.find(key); it != local.end()) return *it->second;
  OpInfoCache& cache = Infos();
  std::lock_guard<std::mutex> lock(cache.mutex);
  auto info = std::make_unique<OpInfo>();
  info->name = g_hooks->intern_string(key);
  const std::optional<c10::OperatorName> op = fn.operator_name();
  std::optional<c10::OperatorHandle> handle;
  if (op) handle = c10::Dispatcher::singleton().findSchema(*op);
  if (handle && handle->schema().name().c_str() == key) {
    for (const c10::Argument& a : handle->schema().arguments())
      info->writes.push_back(a.alias_info() != nullptr && a.alias_info()->isWrite());
    auto& slot = cache.by_schema_name[key];
    if (!slot) slot = std::move(info);
    local.emplace(key, slot.get());
    return *slot;
  }
  auto& slot = cache.by_text[key];
  if (!slot) slot = std::move(info);
  return *slot;  // not cached per thread: the key's address is not stable
}

// The bytes a strided CUDA tensor covers: from the lowest to one past the
// highest element it can address (a bounding range for views with gaps).
bool RegionOf(const at::Tensor& t, bool writes, StreamcheckTensorRegion* out) try {
  if (!t.defined() || !t.is_cuda() || t.layout() != c10::kStrided || !t.has_storage() || t.numel() == 0)
    return false;
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
  out->writes = writes ? 1 : 0;
  return true;
} catch (const std::exception&) {
  // Tensors without real data (symbolic shapes, fake or functional wrappers)
  // throw from these accessors: they touch no device memory we could see.
  return false;
}

void AddRegions(const c10::IValue& v, bool writes, std::vector<StreamcheckTensorRegion>* regions) {
  StreamcheckTensorRegion r;
  if (v.isTensor()) {
    if (RegionOf(v.toTensor(), writes, &r)) regions->push_back(r);
  } else if (v.isTensorList()) {
    for (const at::Tensor& t : v.toTensorList().vec())
      if (RegionOf(t, writes, &r)) regions->push_back(r);
  } else if (v.isList()) {  // Tensor?[] (indexing)
    for (const c10::IValue& element : v.toListRef())
      if (element.isTensor() && RegionOf(element.toTensor(), writes, &r)) regions->push_back(r);
  }
}

// The caching allocator's tracker; attached once the allocator exists (it is
// created after cuInit, when the tracer loads us, so attaching then is lost).
void OnAllocatorTrace(const c10::cuda::CUDACachingAllocator::TraceEntry& e) {
  using Action = c10::cuda::CUDACachingAllocator::TraceEntry::Action;
  StreamcheckBlockEvent event;
  if (e.action_ == Action::ALLOC) event = STREAMCHECK_BLOCK_ALLOCATED;
  else if (e.action_ == Action::FREE_COMPLETED) event = STREAMCHECK_BLOCK_FREED;
  else return;
  // Under the allocator's lock: the GIL may be taken only if already held.
  g_hooks->block_event(event, static_cast<uint64_t>(e.addr_), static_cast<uint64_t>(e.size_),
                       reinterpret_cast<uint64_t>(e.stream_), static_cast<int>(e.device_),
                       CurrentPythonStack(*g_hooks, /*take_gil=*/false));
}

void AttachAllocatorTracker() {
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

thread_local int t_depth = 0;  // ops open on this thread (ours to count: the tracer's are its own)

std::unique_ptr<at::ObserverContext> OnOpStart(const at::RecordFunction& fn) {
  AttachAllocatorTracker();
  const OpInfo& info = InfoOf(fn);
  std::vector<StreamcheckTensorRegion> regions;
  const auto inputs = fn.inputs();
  for (size_t i = 0; i < inputs.size(); ++i)
    AddRegions(inputs[i], i < info.writes.size() && info.writes[i], &regions);
  // The ops the program called carry its Python stack; nested ops inherit it.
  const uint32_t stack = t_depth == 0 ? CurrentPythonStack(*g_hooks, /*take_gil=*/true) : 0;
  ++t_depth;
  g_hooks->op_begin(info.name, stack, regions.data(), regions.size());
  return nullptr;
}

void OnOpEnd(const at::RecordFunction&, at::ObserverContext*) {
  if (t_depth > 0) --t_depth;
  g_hooks->op_end();
}

}  // namespace
}  // namespace streamcheck::pytorch

extern "C" __attribute__((visibility("default"))) int streamcheck_framework_attach(
    const StreamcheckFrameworkHooks* hooks, const char** why) {
  using namespace streamcheck::pytorch;
  if (hooks == nullptr || hooks->version != STREAMCHECK_FRAMEWORK_HOOKS_VERSION) {
    *why = "the tracer and the PyTorch plugin come from different streamcheck builds";
    return 1;
  }
  g_hooks = hooks;
  at::addGlobalCallback(at::RecordFunctionCallback(OnOpStart, OnOpEnd)
                            .needsInputs(true)
                            .scopes({at::RecordScope::FUNCTION}));
  return 0;
}
