#include "tracer/sanitizer/sanitizer_front_end.h"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <sanitizer.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "tracer/api_calls/api_routing.h"
#include "tracer/api_calls/kernel_launches.h"
#include "tracer/debug/debug_flags.h"
#include "tracer/kernel_access/kernel_signature.h"
#include "tracer/sanitizer/device_summaries.h"
#include "tracer/sanitizer/launch_selection.h"
#include "tracer/sanitizer/module_patching.h"
#include "tracer/sanitizer/sanitizer_library.h"
#include "tracer/thread_state.h"

namespace streamcheck::tracer {
namespace {

using precise::DeviceSummaries;
using precise::KernelSelection;
using precise::ModulePatching;
using precise::SanitizerLibrary;

// The decoders name callback ids in CUPTI's spelling (api_call.h); the
// Sanitizer API numbers them alike. A few ids across both ranges stand for all.
constexpr bool SameId(uint32_t sanitizer, uint32_t cupti) { return sanitizer == cupti; }
static_assert(SameId(SANITIZER_CBID_RUNTIME_API_cudaMemcpyAsync, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020));
static_assert(SameId(SANITIZER_CBID_RUNTIME_API_cudaStreamDestroy, CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v5050));
static_assert(SameId(SANITIZER_CBID_RUNTIME_API_cudaGraphAddDependencies,
                     CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddDependencies_v12030));
static_assert(SameId(SANITIZER_CBID_RUNTIME_API_cudaEventElapsedTime,
                     CUPTI_RUNTIME_TRACE_CBID_cudaEventElapsedTime_v12080));
static_assert(SameId(SANITIZER_CBID_DRIVER_API_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
static_assert(SameId(SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz));
static_assert(SameId(SANITIZER_CBID_DRIVER_API_cuStreamWaitEvent_ptsz, CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz));
static_assert(SameId(SANITIZER_CBID_DRIVER_API_cuEventDestroy_v2, CUPTI_DRIVER_TRACE_CBID_cuEventDestroy_v2));
// Streams and host waits through the driver (stream_event_calls.cpp).
static_assert(SameId(SANITIZER_CBID_DRIVER_API_cuStreamCreateWithPriority,
                     CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority));
static_assert(SameId(SANITIZER_CBID_DRIVER_API_cuStreamSynchronize_ptsz, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz));
static_assert(SameId(SANITIZER_CBID_DRIVER_API_cuEventSynchronize, CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize));
static_assert(SameId(SANITIZER_CBID_DRIVER_API_cuCtxSynchronize, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize));
// Copies and memsets through the driver (memory_calls.cpp).
static_assert(SameId(SANITIZER_CBID_DRIVER_API_cuMemcpy_ptds, CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds));
static_assert(SameId(SANITIZER_CBID_DRIVER_API_cuMemcpyHtoDAsync_v2_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz));
static_assert(SameId(SANITIZER_CBID_DRIVER_API_cuMemsetD32Async_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz));
// Allocations and frees through the driver (memory_calls.cpp).
static_assert(SameId(SANITIZER_CBID_DRIVER_API_cuMemAlloc_v2, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2));
static_assert(SameId(SANITIZER_CBID_DRIVER_API_cuMemFree_v2, CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2));
static_assert(SameId(SANITIZER_CBID_DRIVER_API_cuMemAllocFromPoolAsync_ptsz,
                     CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz));
// The host guards' calls (memory_calls.cpp): pinned memory through the driver.
static_assert(SameId(SANITIZER_CBID_DRIVER_API_cuMemFreeHost, CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost));
static_assert(SameId(SANITIZER_CBID_DRIVER_API_cuMemHostRegister_v2, CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2));
static_assert(SameId(SANITIZER_CBID_RUNTIME_API_cudaHostUnregister, CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000));

// Whether a launch of a kernel can be instrumented; decided at its first launch.
struct KernelDecision {
  bool instrument = false;
  std::string why_not;  // a note, when not
};

class PreciseFrontEnd {
 public:
  PreciseFrontEnd(Tracer& tracer, const std::string& glob)
      : tracer_(tracer),
        selection_(glob),
        summaries_(api_, tracer.profile()),
        modules_(api_, DebugFlag(DebugSwitch::kPrecisePerAccess)),
        trace_callbacks_(DebugFlag(DebugSwitch::kPreciseCallbacks)),
        patch_modules_(!DebugFlag(DebugSwitch::kPreciseNoPatch)) {}

  bool Subscribe(std::string* error);
  void OnCallback(Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const void* data);

 private:
  void OnApiCall(ApiDomain domain, Sanitizer_CallbackId cbid, const Sanitizer_CallbackData& data);
  void OnLaunchBegin(const Sanitizer_LaunchData& launch);
  KernelDecision Decide(const Sanitizer_LaunchData& launch);
  void LeaveToFastMode(const Sanitizer_LaunchData& launch, const std::string& why);
  void OnResource(Sanitizer_CallbackId cbid, const void* data);

  Tracer& tracer_;
  SanitizerLibrary api_;
  KernelSelection selection_;
  DeviceSummaries summaries_;
  ModulePatching modules_;
  const bool trace_callbacks_;
  const bool patch_modules_;
  std::mutex decisions_mutex_;
  std::unordered_map<CUfunction, KernelDecision> decisions_;
  std::atomic<int> captures_{0};  // stream captures in progress: their launches do not run now
};

PreciseFrontEnd* g_front_end = nullptr;  // lives until exit: callbacks come during teardown

void SANITIZERAPI OnSanitizerCallback(void*, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid,
                                      const void* data) {
  if (g_front_end == nullptr || GlobalTracer() == nullptr) return;
  GuardInternalErrors("a Sanitizer API callback", [&] { g_front_end->OnCallback(domain, cbid, data); });
}

bool PreciseFrontEnd::Subscribe(std::string* error) {
  if (!api_.Load(error)) return false;
  InitApiRouting();
  Sanitizer_SubscriberHandle subscriber;
  if (SanitizerResult rc = api_.sanitizerSubscribe(&subscriber, OnSanitizerCallback, nullptr); rc != SANITIZER_SUCCESS) {
    *error = "sanitizerSubscribe failed (" + api_.Describe(rc) + "; another tool may be attached)";
    return false;
  }
  // The same calls as CUPTI's front-end; ids this Sanitizer API does not
  // know (versions of a call it no longer reports) are skipped.
  for (const EnabledCalls& list : AllEnabledCalls()) {
    const Sanitizer_CallbackDomain domain =
        list.domain == ApiDomain::kRuntime ? SANITIZER_CB_DOMAIN_RUNTIME_API : SANITIZER_CB_DOMAIN_DRIVER_API;
    for (ApiCallbackId id : list.ids) api_.sanitizerEnableCallback(1, subscriber, domain, id);
  }
  const std::pair<Sanitizer_CallbackDomain, Sanitizer_CallbackId> events[] = {
      {SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CBID_RESOURCE_MODULE_LOADED},
      {SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING},
      {SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_STARTING},
      {SANITIZER_CB_DOMAIN_LAUNCH, SANITIZER_CBID_LAUNCH_BEGIN},
      {SANITIZER_CB_DOMAIN_SYNCHRONIZE, SANITIZER_CBID_SYNCHRONIZE_STREAM_SYNCHRONIZED},
      {SANITIZER_CB_DOMAIN_SYNCHRONIZE, SANITIZER_CBID_SYNCHRONIZE_CONTEXT_SYNCHRONIZED},
      {SANITIZER_CB_DOMAIN_GRAPHS, SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN},
  };
  for (const auto& [domain, cbid] : events) {
    if (SanitizerResult rc = api_.sanitizerEnableCallback(1, subscriber, domain, cbid); rc != SANITIZER_SUCCESS) {
      *error = "the Sanitizer API refused a callback (" + api_.Describe(rc) + ")";
      api_.sanitizerUnsubscribe(subscriber);  // CUPTI's front-end subscribes instead
      return false;
    }
  }
  tracer_.set_device_accesses(&summaries_);
  return true;
}

void PreciseFrontEnd::OnCallback(Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const void* data) {
  if (trace_callbacks_) {
    const char* name = "";
    if (domain == SANITIZER_CB_DOMAIN_RUNTIME_API || domain == SANITIZER_CB_DOMAIN_DRIVER_API) {
      const auto* api = static_cast<const Sanitizer_CallbackData*>(data);
      name = api->callbackSite == SANITIZER_API_ENTER ? api->functionName : "(exit)";
    }
    std::fprintf(stderr, "streamcheck[precise-callbacks] domain %d cbid %u %s\n", static_cast<int>(domain),
                 static_cast<unsigned>(cbid), name);
  }
  switch (domain) {
    case SANITIZER_CB_DOMAIN_RUNTIME_API:
      return OnApiCall(ApiDomain::kRuntime, cbid, *static_cast<const Sanitizer_CallbackData*>(data));
    case SANITIZER_CB_DOMAIN_DRIVER_API:
      return OnApiCall(ApiDomain::kDriver, cbid, *static_cast<const Sanitizer_CallbackData*>(data));
    case SANITIZER_CB_DOMAIN_LAUNCH:
      if (cbid == SANITIZER_CBID_LAUNCH_BEGIN) OnLaunchBegin(*static_cast<const Sanitizer_LaunchData*>(data));
      return;
    case SANITIZER_CB_DOMAIN_SYNCHRONIZE: {
      const auto& sync = *static_cast<const Sanitizer_SynchronizeData*>(data);
      summaries_.Settle(sync.context, cbid == SANITIZER_CBID_SYNCHRONIZE_STREAM_SYNCHRONIZED ? sync.hStream : nullptr);
      return;
    }
    case SANITIZER_CB_DOMAIN_GRAPHS:
      if (cbid == SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN) {
        const auto& node = *static_cast<const Sanitizer_GraphNodeLaunchData*>(data);
        if (node.nodeType == CU_GRAPH_NODE_TYPE_KERNEL) LeaveToFastMode(node.launchData, "");
      }
      return;
    case SANITIZER_CB_DOMAIN_RESOURCE:
      return OnResource(cbid, data);
    default:
      return;
  }
}

void PreciseFrontEnd::OnApiCall(ApiDomain domain, Sanitizer_CallbackId cbid, const Sanitizer_CallbackData& data) {
  const bool entry = data.callbackSite == SANITIZER_API_ENTER;
  const ApiCall call{tracer_,          data.functionName, data.functionParams, data.functionReturnValue,
                     data.symbolName, entry,             false};
  RouteApiCall(tracer_, domain, cbid, call);
  if (entry) return;
  // A launch whose record did not take its ticket (the call failed): the slot goes back.
  if (domain == ApiDomain::kDriver && IsDriverLaunch(cbid)) {
    ThreadState& thread = ThisThread();
    if (thread.device_access_ticket != 0) summaries_.Abandon(thread.device_access_ticket);
    thread.device_access_ticket = 0;
  }
  // Work enqueued during a capture runs at the graph's launch, not now. A
  // capture ends with its cudaStreamEndCapture, invalidated or not.
  if (domain != ApiDomain::kRuntime) return;
  const bool succeeded = *static_cast<const cudaError_t*>(data.functionReturnValue) == cudaSuccess;
  if (succeeded && (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000 ||
                    cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000))
    ++captures_;
  if ((cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000 ||
       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000) &&
      captures_ > 0)
    --captures_;
}

void PreciseFrontEnd::LeaveToFastMode(const Sanitizer_LaunchData& launch, const std::string& why) {
  // A patched kernel must not log into another launch's summary.
  api_.sanitizerSetLaunchCallbackData(launch.hLaunch, launch.function, launch.hStream, nullptr);
  if (!why.empty()) summaries_.Note(why);
}

// A copy: another thread may forget every decision (a module unloads).
KernelDecision PreciseFrontEnd::Decide(const Sanitizer_LaunchData& launch) {
  std::lock_guard<std::mutex> lock(decisions_mutex_);
  auto [it, inserted] = decisions_.try_emplace(launch.function);
  KernelDecision& d = it->second;
  if (!inserted) return d;
  const std::string name = Demangle(launch.functionName ? launch.functionName : "");
  if (!selection_.Selects(name)) {
    d.why_not = "precise: kernels not matching --precise=" + selection_.glob() + " keep fast mode's extents";
    return d;
  }
  if (!modules_.Patched(launch.module)) {
    d.why_not = "precise: kernels of modules that were not patched keep fast mode's extents";
    return d;
  }
  if (const std::string_view vendor = precise::LaunchingVendorLibrary(); !vendor.empty()) {
    d.why_not = "precise: kernels launched by " + std::string(vendor) + " keep fast mode's extents";
    return d;
  }
  d.instrument = true;
  return d;
}

void PreciseFrontEnd::OnLaunchBegin(const Sanitizer_LaunchData& launch) {
  ThreadState& thread = ThisThread();
  thread.device_access_ticket = 0;
  // Inside a traced runtime call (cudaGraphLaunch runs its kernel nodes so):
  // the engine runs such kernels from their graph's nodes, with the
  // extents recorded when the nodes were made.
  if (InsideRuntimeCall()) return LeaveToFastMode(launch, "precise: kernels of graph launches keep fast mode's extents");
  if (captures_ > 0) return LeaveToFastMode(launch, "precise: kernels launched during a stream capture keep fast mode's extents");
  const KernelDecision decision = Decide(launch);
  if (!decision.instrument) return LeaveToFastMode(launch, decision.why_not);
  std::string why_not;
  uint32_t ticket = summaries_.Begin(launch, &why_not);
  if (ticket == 0 && DeviceSummaries::Exhausted(why_not)) {
    // Earlier launches hold every slot: once the worker analysed them they
    // are free (it waits for those kernels' ends, which come without us).
    tracer_.AwaitAnalysis();
    ticket = summaries_.Begin(launch, &why_not);
  }
  if (ticket == 0) return LeaveToFastMode(launch, why_not);
  thread.device_access_ticket = ticket;
}

void PreciseFrontEnd::OnResource(Sanitizer_CallbackId cbid, const void* data) {
  if (cbid == SANITIZER_CBID_RESOURCE_MODULE_LOADED && patch_modules_) {
    const std::string why = modules_.OnModuleLoaded(*static_cast<const Sanitizer_ResourceModuleData*>(data));
    if (!why.empty()) {
      static std::atomic<int> printed{0};
      if (printed++ < 3) std::fprintf(stderr, "streamcheck: %s\n", why.c_str());
      summaries_.Note(why);
    }
  } else if (cbid == SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING) {
    // Its functions' handles may come back for another module's kernels.
    modules_.Forget(static_cast<const Sanitizer_ResourceModuleData*>(data)->module);
    ForgetKernelLayouts();
    std::lock_guard<std::mutex> lock(decisions_mutex_);
    decisions_.clear();
  } else if (cbid == SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    const CUcontext context = static_cast<const Sanitizer_ResourceContextData*>(data)->context;
    tracer_.AwaitAnalysis();  // every launch of the context analysed: its summaries may go
    summaries_.ForgetContext(context);
    modules_.ForgetContext(context);
  }
}

}  // namespace

bool SubscribePrecise(Tracer& tracer, const std::string& glob, std::string* error) {
  auto front_end = std::make_unique<PreciseFrontEnd>(tracer, glob);
  g_front_end = front_end.get();
  if (!front_end->Subscribe(error)) {
    g_front_end = nullptr;
    tracer.set_device_accesses(nullptr);
    return false;
  }
  (void)front_end.release();  // lives until exit: callbacks come during teardown
  return true;
}

}  // namespace streamcheck::tracer
