#include "tracer/api_calls/kernel_launches.h"

#include <atomic>
#include <cstdio>
#include <unordered_map>

#include "tracer/api_calls/cuda_call_params.h"
#include "tracer/debug/debug_flags.h"
#include "tracer/hot_path.h"
#include "tracer/kernel_access/kernel_arguments.h"
#include "tracer/kernel_access/kernel_signature.h"
#include "tracer/thread_state.h"

namespace streamcheck::tracer {
namespace {

// Parameter layout and pointer modes of one kernel, from cuFuncGetParamInfo
// and the demangled name. Looked up once per CUfunction.
struct KernelLayout {
  CUresult layout_error = CUDA_SUCCESS;  // why cuFuncGetParamInfo gave nothing, if it did
  std::string name;
  StringId name_id = 0;  // interned once: PyTorch's kernel names run to kilobytes
  std::vector<ParamSlot> params;
  bool volatile_pointers = false;  // a parameter points to volatile memory: left out, counted
};

// Modules unloaded so far (ForgetKernelLayouts): the cache below holds
// layouts of handles no unload has passed since it was last cleared.
std::atomic<uint64_t> g_module_unloads{0};
std::atomic<bool> g_layouts_cached{true};  // false: unloads cannot be seen

// With the tracer's lock held.
std::unordered_map<CUfunction, KernelLayout>& Layouts() {
  static auto* layouts = new std::unordered_map<CUfunction, KernelLayout>;  // lives past exit handlers
  static uint64_t unloads_seen = 0;
  const uint64_t unloads = g_module_unloads.load(std::memory_order_acquire);
  if (unloads != unloads_seen || !g_layouts_cached.load(std::memory_order_relaxed)) [[unlikely]] {
    layouts->clear();
    unloads_seen = unloads;
  }
  return *layouts;
}

// The handle a launch passes may be a CUfunction or, from the CUDA runtime
// (which loads kernels through the library API), a CUkernel cast to one; the
// driver accepts both, so the layout is asked of both.
template <typename Handle, typename GetParamInfo>
CUresult ReadParams(Handle h, GetParamInfo get, std::vector<ParamSlot>* params) {
  for (size_t i = 0; i < 4096; ++i) {
    size_t offset = 0, size = 0;
    const CUresult rc = get(h, i, &offset, &size);
    if (rc != CUDA_SUCCESS) return i == 0 ? rc : CUDA_SUCCESS;  // past the last parameter
    params->push_back({offset, size, AccessMode::kUnknown});
  }
  return CUDA_SUCCESS;
}

STREAMCHECK_HOT const KernelLayout& LayoutOf(Tracer& t, CUfunction f, const char* fallback_name) {
  auto [it, inserted] = Layouts().try_emplace(f);
  KernelLayout& k = it->second;
  if (!inserted) return k;
  const char* mangled = nullptr;
  if (cuFuncGetName(&mangled, f) != CUDA_SUCCESS || mangled == nullptr)
    if (cuKernelGetName(&mangled, reinterpret_cast<CUkernel>(f)) != CUDA_SUCCESS) mangled = nullptr;
  k.name = Demangle(mangled ? mangled : fallback_name);
  k.name_id = t.Intern(k.name);
  k.layout_error = ReadParams(f, cuFuncGetParamInfo, &k.params);
  if (k.layout_error != CUDA_SUCCESS) {
    k.params.clear();
    if (ReadParams(reinterpret_cast<CUkernel>(f), cuKernelGetParamInfo, &k.params) == CUDA_SUCCESS)
      k.layout_error = CUDA_SUCCESS;
  }
  // A kernel without parameters has no parameter 0 to ask about; its
  // demangled signature says so ("f()"), where an extern "C" name says nothing.
  if (k.layout_error != CUDA_SUCCESS && k.name.ends_with("()")) k.layout_error = CUDA_SUCCESS;
  const std::vector<std::string> types = ParameterTypes(k.name);
  if (types.size() == k.params.size())
    for (size_t i = 0; i < types.size(); ++i) {
      k.params[i].mode = ModeOfParameter(types[i]);
      k.params[i].volatile_pointee = PointsToVolatile(types[i]);
      k.volatile_pointers = k.volatile_pointers || k.params[i].volatile_pointee;
    }
  return k;
}

// Where each parameter's bytes are: the kernelParams form (one pointer per
// parameter) or the `extra` form (one buffer, parameters at their offsets),
// which libraries may pass to cuLaunchKernel instead.
struct ArgumentSource {
  void** params = nullptr;
  const char* buffer = nullptr;
  size_t buffer_size = 0;

  static ArgumentSource From(void** kernel_params, void** extra = nullptr) {
    ArgumentSource a;
    a.params = kernel_params;
    if (kernel_params != nullptr || extra == nullptr) return a;
    for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
      if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) a.buffer = static_cast<const char*>(extra[i + 1]);
      else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) a.buffer_size = *static_cast<const size_t*>(extra[i + 1]);
    }
    return a;
  }
  bool empty() const { return params == nullptr && buffer == nullptr; }
  // The bytes of parameter i, or null when they are not available.
  const char* Value(const KernelLayout& k, size_t i) const {
    if (params != nullptr) return static_cast<const char*>(params[i]);
    const ParamSlot& slot = k.params[i];
    return buffer != nullptr && slot.offset + slot.size <= buffer_size ? buffer + slot.offset : nullptr;
  }
};

// The argument words that may be pointers, into r's accesses for the
// analysis worker to match (record_resolver.h).
STREAMCHECK_HOT void CollectArguments(Tracer& t, const KernelLayout& k, const ArgumentSource& args, TraceRecord* r) {
  if (k.params.empty() && k.layout_error != CUDA_SUCCESS) {
    const char* why = nullptr;
    cuGetErrorName(k.layout_error, &why);
    t.CountUnmodeled(std::string("kernel arguments (cuFuncGetParamInfo: ") + (why ? why : "?") + ")");
  }
  // XLA's timer launches a kernel that spins on a pinned flag until the host
  // releases it: by design, not a race (kernel_signature.h: PointsToVolatile).
  if (k.volatile_pointers)
    t.CountUnmodeled("kernel arguments pointing to volatile memory (synchronization, not checked)");
  r->pointer_words = true;
  if (args.empty()) {
    r->accesses.clear();
    return;
  }
  const uint64_t start = t.profile().Now();
  CollectPointerWords(k.params, [&](size_t i) { return args.Value(k, i); }, t.address_span(), &r->accesses);
  t.profile().Add(ProfilePhase::kArguments, start);
}

// STREAMCHECK_DEBUG=launch (debug/debug_switches.def).
STREAMCHECK_HOT void DebugLaunch(const char* api, const KernelLayout& k, const ArgumentSource& args,
                                 size_t pointer_words) {
  static const bool on = DebugFlag(DebugSwitch::kLaunch);
  if (!on) return;
  const char* error = nullptr;
  if (k.layout_error != CUDA_SUCCESS) cuGetErrorName(k.layout_error, &error);
  std::fprintf(stderr, "streamcheck[launch] %s %s: %zu params%s%s, args %s, %zu possible pointers\n", api, k.name.c_str(),
               k.params.size(), error ? " layout error " : "", error ? error : "",
               args.params ? "kernelParams" : args.buffer ? "extra buffer" : "none", pointer_words);
}

// Name and argument words of the pending kernel; counts when its function was not seen.
void ResolvePending(Tracer& t, const char* symbol_fallback, TraceRecord* node) {
  const PendingKernelNode& pending = ThisThread().pending_kernel;
  if (pending.function == nullptr) {
    t.CountUnmodeled("kernel arguments (no driver-level kernel node seen)");
    node->name = symbol_fallback ? t.Intern(Demangle(symbol_fallback)) : 0;
    node->accesses.clear();
    return;
  }
  const KernelLayout& k =
      LayoutOf(t, static_cast<CUfunction>(pending.function), pending.symbol ? pending.symbol : "");
  node->name = k.name_id;
  CollectArguments(t, k, ArgumentSource::From(pending.args), node);
  DebugLaunch("graph kernel node", k, ArgumentSource::From(pending.args), node->accesses.size());
}

}  // namespace

STREAMCHECK_HOT bool InsideRuntimeCall() { return ThisThread().runtime_depth > 0; }
// The preloaded library leaves out what the thread synchronizes inside the
// call (the runtime's own locks, where no symbols name its code).
void EnterRuntimeCall(Tracer& t) {
  if (ThisThread().runtime_depth++ == 0) t.host_thread_order().SetInsideRuntimeCall(true);
}
void LeaveRuntimeCall(Tracer& t) {
  int& depth = ThisThread().runtime_depth;
  if (depth > 0 && --depth == 0) t.host_thread_order().SetInsideRuntimeCall(false);
}

STREAMCHECK_HOT bool HandleDriverLaunch(const ApiCall& c, ApiCallbackId cbid) {
  Tracer& t = c.tracer;
  CUfunction f = nullptr;
  void** args = nullptr;
  void** extra = nullptr;
  CUstream stream = nullptr;
  bool per_thread = false;
  bool graph_node = false;
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
      per_thread = true;
      [[fallthrough]];
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel: {
      const auto& p = *static_cast<const cuLaunchKernel_params*>(c.function_params);
      f = p.f, args = p.kernelParams, extra = p.extra, stream = p.hStream;
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      per_thread = true;
      [[fallthrough]];
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel: {
      const auto& p = *static_cast<const cuLaunchCooperativeKernel_params*>(c.function_params);
      f = p.f, args = p.kernelParams, stream = p.hStream;
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
      per_thread = true;
      [[fallthrough]];
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: {
      const auto& p = *static_cast<const cuLaunchKernelEx_params*>(c.function_params);
      f = p.f, args = p.kernelParams, extra = p.extra, stream = p.config ? p.config->hStream : nullptr;
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphAddKernelNode:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphAddKernelNode_v2: {
      // v1 and v2 node parameters share the leading fields read here.
      const auto& p = *static_cast<const cuGraphAddKernelNode_v2_params*>(c.function_params);
      if (p.nodeParams) f = p.nodeParams->func, args = p.nodeParams->kernelParams;
      graph_node = true;
      break;
    }
    default:
      return false;
  }
  ThreadState& thread = ThisThread();
  if (thread.pending_kernel.active) {  // nested in cudaGraphAddKernelNode: it supplies the function
    if (c.entry && f != nullptr) {
      thread.pending_kernel.function = f;
      thread.pending_kernel.symbol = c.symbol_name;
    }
    return true;
  }
  if (graph_node || c.entry || thread.runtime_depth > 0) return true;
  if (c.driver_result() != CUDA_SUCCESS || f == nullptr) return true;
  const KernelLayout& k = LayoutOf(t, f, c.symbol_name ? c.symbol_name : "");
  const ArgumentSource source = ArgumentSource::From(args, extra);
  TraceRecord& r = thread.launch;  // reused: its access list keeps its buffer
  r.Clear();
  r.op = OpCode::kKernelLaunch;
  r.api = t.InternStatic(c.function_name);
  r.name = k.name_id;
  // CU_STREAM_LEGACY (0x1) and CU_STREAM_PER_THREAD (0x2) match the runtime's values.
  r.stream = StreamHandle(stream, per_thread);
  r.device_access_ticket = thread.device_access_ticket;  // 0 but under --precise
  thread.device_access_ticket = 0;
  CollectArguments(t, k, source, &r);
  DebugLaunch(c.function_name, k, source, r.accesses.size());
  t.Emit(r);
  return true;
}

void OpenPendingKernel(void** args) {
  PendingKernelNode& pending = ThisThread().pending_kernel;
  pending = PendingKernelNode{};
  pending.active = true;
  pending.args = args;
}

void TakePendingKernel(const ApiCall& c, TraceRecord* node) {
  ResolvePending(c.tracer, c.symbol_name, node);
  DiscardPendingKernel();
}

void DiscardPendingKernel() { ThisThread().pending_kernel = PendingKernelNode{}; }

void ForgetKernelLayouts() { g_module_unloads.fetch_add(1, std::memory_order_release); }
void DisableKernelLayoutCache() { g_layouts_cached.store(false); }

}  // namespace streamcheck::tracer
