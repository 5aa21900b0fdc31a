#include "tracer/cupti/cupti_callbacks.h"

#include <cupti.h>
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bitset>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tracer/cupti/callback_context.h"
#include "tracer/debug/debug_flags.h"
#include "tracer/hot_path.h"
#include "tracer/cupti/kernel_launches.h"
#include "tracer/debug/launch_timing.h"
#include "tracer/host/host_guards.h"

namespace streamcheck::tracer {
namespace {

// Runtime API calls that can change ordering but are not modeled: counted
// and listed in the run summary, never silently ignored.
constexpr CUpti_CallbackId kUnmodeledRuntime[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_v12030,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_ptsz_v12030,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamUpdateCaptureDependencies_v11030,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamUpdateCaptureDependencies_ptsz_v11030,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamUpdateCaptureDependencies_v12030,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamUpdateCaptureDependencies_ptsz_v12030,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddChildGraphNode_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddEventRecordNode_v11010,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddEventWaitNode_v11010,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddMemAllocNode_v11040,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddMemFreeNode_v11040,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphExecKernelNodeSetParams_v10010,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_v12080,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_ptsz_v12080,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_v13000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_ptsz_v13000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DPeerAsync_v4000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DPeerAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_v8000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_v12020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamAttachMemAsync_v6000,
};

// Driver calls that order or touch memory when a library makes them directly
// (not from inside a traced runtime call): counted as not modeled.
constexpr CUpti_CallbackId kUnmodeledDriver[] = {
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync,           CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2,    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async,         CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async,
    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,     CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync,         CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync,
};

// Pinned memory through the driver (memory_calls.cpp): libraries that call
// the driver directly allocate and free it so (cudaHostAlloc's own nested
// calls are the runtime call's).
constexpr CUpti_CallbackId kDriverHostMemory[] = {
    CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc,       CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost,        CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister,
};

// Decoded by HandleDriverLaunch (kernel_launches.cpp).
constexpr CUpti_CallbackId kDriverLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
};
constexpr CUpti_CallbackId kDriverKernelNodes[] = {
    CUPTI_DRIVER_TRACE_CBID_cuGraphAddKernelNode,
    CUPTI_DRIVER_TRACE_CBID_cuGraphAddKernelNode_v2,
};

// Driver calls decoded as events and waits (stream_event_calls.cpp), whether
// the runtime or a library makes them; the _ptsz ones (per_thread) take
// stream 0 as the per-thread default stream.
struct DriverEventCall {
  CUpti_CallbackId cbid;
  bool per_thread;
};
constexpr DriverEventCall kDriverEventCalls[] = {
    {CUPTI_DRIVER_TRACE_CBID_cuEventRecord, false},
    {CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz, true},
    {CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags, false},
    {CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz, true},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, false},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz, true},
    {CUPTI_DRIVER_TRACE_CBID_cuEventDestroy, false},
    {CUPTI_DRIVER_TRACE_CBID_cuEventDestroy_v2, false},
};

bool IsPerThreadDriverEventCall(CUpti_CallbackId cbid) {
  for (const DriverEventCall& call : kDriverEventCalls)
    if (call.cbid == cbid) return call.per_thread;
  return false;
}

// Runtime calls the decoders model (kernel_launches.cpp, stream_event_calls.cpp,
// memory_calls.cpp, graph_calls.cpp).
constexpr CUpti_CallbackId kModeledRuntime[] = {
#define X(name) CUPTI_RUNTIME_TRACE_CBID_##name,
#include "tracer/cupti/modeled_runtime_calls.def"
#undef X
};

bool Contains(const CUpti_CallbackId* list, size_t n, CUpti_CallbackId cbid) {
  for (size_t i = 0; i < n; ++i)
    if (list[i] == cbid) return true;
  return false;
}

// Modeled runtime calls whose name has _ptsz/_ptds (stream 0 means the
// per-thread default stream), by callback id: found once from the names in
// modeled_runtime_calls.def, not by searching the name in every callback.
std::bitset<CUPTI_RUNTIME_TRACE_CBID_SIZE> g_per_thread_runtime_calls;

void FindPerThreadRuntimeCalls() {
  struct Named {
    CUpti_CallbackId cbid;
    const char* name;
  };
  static constexpr Named kModeled[] = {
#define X(name) {CUPTI_RUNTIME_TRACE_CBID_##name, #name},
#include "tracer/cupti/modeled_runtime_calls.def"
#undef X
  };
  for (const Named& call : kModeled)
    if (std::strstr(call.name, "_ptsz") != nullptr || std::strstr(call.name, "_ptds") != nullptr)
      g_per_thread_runtime_calls[call.cbid] = true;
}

bool IsPerThreadVariant(CUpti_CallbackId cbid) {
  return cbid < g_per_thread_runtime_calls.size() && g_per_thread_runtime_calls[cbid];
}

// Queries report "not ready" as an error code, which is still information.
bool IsQuery(CUpti_CallbackId cbid) {
  return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020 ||
         cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_ptsz_v7000 ||
         cbid == CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020 ||
         cbid == CUPTI_RUNTIME_TRACE_CBID_cudaEventElapsedTime_v3020 ||
         cbid == CUPTI_RUNTIME_TRACE_CBID_cudaEventElapsedTime_v12080;
}

// Entering a runtime call touches only this thread's state (the pending
// graph kernel node), so it runs without the tracer's lock; the host
// guards' part takes what it needs itself.
void OnRuntimeEntry(Tracer& t, CUpti_CallbackId cbid, const CUpti_CallbackData* data) {
  EnterRuntimeCall();
  if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddKernelNode_v10000) {
    const auto& params = *static_cast<const cudaGraphAddKernelNode_v10000_params*>(data->functionParams);
    OpenPendingKernel(params.pNodeParams ? params.pNodeParams->kernelParams : nullptr);
  }
  GuardHostMemoryAtEntry(t, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, data);
}

void OnRuntimeExit(Tracer& t, CUpti_CallbackId cbid, const CUpti_CallbackData* data) {
  const CallbackContext c{t, data, IsPerThreadVariant(cbid)};
  LeaveRuntimeCall();
  if (host::HostGuards* guards = t.host_guards()) guards->Resume();  // what the entry opened
  const cudaError_t rc = c.result();
  if (rc != cudaSuccess && !(IsQuery(cbid) && rc == cudaErrorNotReady)) {  // failed calls do nothing
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddKernelNode_v10000) DiscardPendingKernel();
    return;
  }
  if (DecodeStreamOrEventCall(c, cbid) || DecodeMemoryCall(c, cbid) || DecodeGraphCall(c, cbid)) return;
  if (Contains(kUnmodeledRuntime, std::size(kUnmodeledRuntime), cbid)) t.CountUnmodeled(data->functionName);
}

// At API exit, outside a traced runtime call.
STREAMCHECK_HOT void OnDriverCall(Tracer& t, CUpti_CallbackId cbid, const CUpti_CallbackData* data) {
  if (HandleDriverLaunch(t, data, cbid)) return;
  const CallbackContext c{t, data, IsPerThreadDriverEventCall(cbid)};
  if (DecodeDriverEventCall(c, cbid) || DecodeDriverHostMemoryCall(c, cbid)) return;
  t.CountUnmodeled(data->functionName);
}

// STREAMCHECK_DEBUG=profile: how often each enabled call's callbacks fired,
// printed at exit, because CUPTI's cost is per callback and a workload's mix
// of calls decides which of them are worth modeling from another site.
class CallbackCensus {
 public:
  void Count(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char* name) {
    Slot* slot = SlotOf(domain, cbid);
    if (slot == nullptr) return;
    slot->name.store(name, std::memory_order_relaxed);
    slot->count.fetch_add(1, std::memory_order_relaxed);
  }
  void Print() const {
    struct Fired {
      uint64_t count;
      const char* name;
      bool driver;
    };
    std::vector<Fired> fired;
    auto collect = [&](const auto& table, bool driver) {
      for (const Slot& s : table)
        if (const uint64_t n = s.count.load()) fired.push_back({n, s.name.load(), driver});
    };
    collect(runtime_, false);
    collect(driver_, true);
    std::sort(fired.begin(), fired.end(), [](const Fired& a, const Fired& b) { return a.count > b.count; });
    std::fprintf(stderr, "streamcheck[profile]: callbacks by call (entry and exit each count):");
    for (const Fired& f : fired)
      std::fprintf(stderr, " %s %llu%s", f.name ? f.name : "?", static_cast<unsigned long long>(f.count),
                   f.driver ? " (driver);" : ";");
    std::fprintf(stderr, "\n");
  }

 private:
  struct Slot {
    std::atomic<uint64_t> count{0};
    std::atomic<const char*> name{nullptr};
  };
  Slot* SlotOf(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid < runtime_.size()) return &runtime_[cbid];
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid < driver_.size()) return &driver_[cbid];
    return nullptr;
  }
  std::array<Slot, CUPTI_RUNTIME_TRACE_CBID_SIZE> runtime_;
  std::array<Slot, CUPTI_DRIVER_TRACE_CBID_SIZE> driver_;
};

CallbackCensus* g_census = nullptr;           // only with STREAMCHECK_DEBUG=profile
LaunchTiming* g_launch_timing = nullptr;      // only with STREAMCHECK_DEBUG=launch-timing

STREAMCHECK_HOT void Route(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData* data) {
  static const bool callbacks_only = DebugFlag(DebugSwitch::kCallbacksOnly);
  if (g_census != nullptr) g_census->Count(domain, cbid, data->functionName);
  Tracer* t = GlobalTracer();
  if (t == nullptr || callbacks_only) return;
  GuardInternalErrors("a CUDA callback", [&] { HandleCallback(t, domain, cbid, data); });
}

STREAMCHECK_HOT void CUPTIAPI OnCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                         const void* payload) {
  const auto* data = static_cast<const CUpti_CallbackData*>(payload);
  if (g_launch_timing == nullptr || domain != CUPTI_CB_DOMAIN_DRIVER_API ||
      !Contains(kDriverLaunches, std::size(kDriverLaunches), cbid))
    return Route(domain, cbid, data);
  const uint64_t begin = g_launch_timing->Now();
  Route(domain, cbid, data);
  g_launch_timing->Note(data->callbackSite == CUPTI_API_ENTER, begin, g_launch_timing->Now());
}

bool Enable(CUpti_SubscriberHandle s, CUpti_CallbackDomain domain, const CUpti_CallbackId* ids, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (cuptiEnableCallback(1, s, domain, ids[i]) != CUPTI_SUCCESS) return false;
  return true;
}

}  // namespace

STREAMCHECK_HOT void HandleCallback(Tracer* t, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                    const CUpti_CallbackData* data) {
  const bool entry = data->callbackSite == CUPTI_API_ENTER;
  // Entering a call only notes it in this thread's state: no lock.
  const uint64_t start = t->profile().Now();
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && entry) {
    OnRuntimeEntry(*t, cbid, data);
    return t->profile().Add(ProfilePhase::kUnlockedCallback, start);
  }
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API && (entry || InsideRuntimeCall())) {
    if (!HandleDriverLaunch(*t, data, cbid) && entry && !InsideRuntimeCall())
      GuardHostMemoryAtEntry(*t, domain, cbid, data);
    return t->profile().Add(ProfilePhase::kUnlockedCallback, start);
  }
  {
    std::lock_guard<TracerLock> lock(t->tracer_lock());
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) OnRuntimeExit(*t, cbid, data);
    else if (domain == CUPTI_CB_DOMAIN_DRIVER_API) OnDriverCall(*t, cbid, data);
    t->profile().Add(ProfilePhase::kLockedCallback, start);
  }
  t->AwaitHostSynchronizationAnalysis();  // other threads' calls go on meanwhile
}

bool SubscribeCallbacks() {
  FindPerThreadRuntimeCalls();
  if (DebugFlag(DebugSwitch::kProfile)) {
    g_census = new CallbackCensus;  // lives until exit: callbacks may still come during teardown
    std::atexit([] { g_census->Print(); });
  }
  if (DebugFlag(DebugSwitch::kLaunchTiming)) {
    g_launch_timing = new LaunchTiming;  // lives until exit, as the census does
    std::atexit([] { g_launch_timing->Print(); });
  }
  CUpti_SubscriberHandle subscriber;
  const CUptiResult rc = cuptiSubscribe(&subscriber, reinterpret_cast<CUpti_CallbackFunc>(OnCallback), nullptr);
  if (rc != CUPTI_SUCCESS) {
    const char* why = nullptr;
    cuptiGetResultString(rc, &why);
    std::fprintf(stderr,
                 "streamcheck: cannot subscribe to CUPTI (%s); another profiler or sanitizer may be "
                 "attached. The program runs untraced.\n",
                 why ? why : "unknown error");
    return false;
  }
  // Floors for measuring CUPTI's own cost: a subscription with nothing
  // enabled, or with the kernel launches alone.
  if (DebugFlag(DebugSwitch::kSubscribeOnly)) return true;
  if (DebugFlag(DebugSwitch::kLaunchCallbacksOnly))
    return Enable(subscriber, CUPTI_CB_DOMAIN_DRIVER_API, kDriverLaunches, std::size(kDriverLaunches)) &&
           Enable(subscriber, CUPTI_CB_DOMAIN_DRIVER_API, kDriverKernelNodes, std::size(kDriverKernelNodes));
  const bool ok = Enable(subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, kModeledRuntime, std::size(kModeledRuntime)) &&
                  Enable(subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, kUnmodeledRuntime, std::size(kUnmodeledRuntime)) &&
                  Enable(subscriber, CUPTI_CB_DOMAIN_DRIVER_API, kDriverLaunches, std::size(kDriverLaunches)) &&
                  Enable(subscriber, CUPTI_CB_DOMAIN_DRIVER_API, kDriverKernelNodes, std::size(kDriverKernelNodes)) &&
                  std::all_of(std::begin(kDriverEventCalls), std::end(kDriverEventCalls),
                              [&](const DriverEventCall& call) {
                                return Enable(subscriber, CUPTI_CB_DOMAIN_DRIVER_API, &call.cbid, 1);
                              }) &&
                  Enable(subscriber, CUPTI_CB_DOMAIN_DRIVER_API, kUnmodeledDriver, std::size(kUnmodeledDriver)) &&
                  Enable(subscriber, CUPTI_CB_DOMAIN_DRIVER_API, kDriverHostMemory, std::size(kDriverHostMemory));
  if (!ok) std::fprintf(stderr, "streamcheck: CUPTI refused a callback; some calls will not be traced\n");
  return true;
}

}  // namespace streamcheck::tracer
