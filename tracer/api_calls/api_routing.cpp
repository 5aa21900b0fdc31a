#include "tracer/api_calls/api_routing.h"

#include <array>
#include <bitset>
#include <cstring>
#include <iterator>
#include <mutex>

#include "tracer/api_calls/cuda_call_params.h"
#include "tracer/api_calls/graph_host_nodes.h"
#include "tracer/api_calls/host_func_trampoline.h"
#include "tracer/api_calls/kernel_launches.h"
#include "tracer/host/host_guards.h"
#include "tracer/hot_path.h"

namespace streamcheck::tracer {
namespace {

// Runtime API calls that can change ordering but are not modeled: counted
// and listed in the run summary, never silently ignored.
constexpr ApiCallbackId kUnmodeledRuntime[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamUpdateCaptureDependencies_v11030,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamUpdateCaptureDependencies_ptsz_v11030,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamUpdateCaptureDependencies_v12030,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamUpdateCaptureDependencies_ptsz_v12030,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddChildGraphNode_v10000,
    // The generic node API (a conditional node's graph, or any node type),
    // node parameter changes and clones: their graphs' nodes are not known.
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddNode_v12020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddNode_v12030,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphNodeSetParams_v12020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphExecNodeSetParams_v12020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphClone_v10000,
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
constexpr ApiCallbackId kUnmodeledDriver[] = {
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2,        CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2,        CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2,
};

// A driver call decoded outside a runtime call, and whether it is the _ptsz
// or _ptds variant (stream 0: the per-thread default stream).
struct DriverCall {
  ApiCallbackId cbid;
  bool per_thread;
};

// Host-function launches through the driver: where the function is replaced
// by a trampoline (host_func_trampoline.h), inside a runtime launch or made
// directly (stream_event_calls.cpp records those).
constexpr DriverCall kDriverHostFuncCallList[] = {
    {CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc, false},    {CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz, true},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamAddCallback, false}, {CUPTI_DRIVER_TRACE_CBID_cuStreamAddCallback_ptsz, true},
};

// Copies and memsets through the driver (driver_copy_calls.def, memory_calls.cpp).
constexpr DriverCall kDriverCopyCallList[] = {
#define STREAMCHECK_DRIVER_COPY(call, variant, ...) \
  {CUPTI_DRIVER_TRACE_CBID_##call, false}, {CUPTI_DRIVER_TRACE_CBID_##variant, true},
#define STREAMCHECK_DRIVER_MEMSET STREAMCHECK_DRIVER_COPY
#include "tracer/api_calls/driver_copy_calls.def"
#undef STREAMCHECK_DRIVER_COPY
#undef STREAMCHECK_DRIVER_MEMSET
};

// Allocations and frees through the driver (memory_calls.cpp): libraries and
// programs that call the driver directly allocate and free so (cudaMalloc's
// and cudaHostAlloc's own nested calls are the runtime call's). The _ptsz
// forms take stream 0 as the per-thread default stream.
constexpr DriverCall kDriverMemoryCallList[] = {
    {CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, false},           {CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2, false},
    {CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged, false},       {CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2, false},
    {CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync, false},         {CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz, true},
    {CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync, false}, {CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz, true},
    {CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync, false},          {CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz, true},
    {CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc, false},          {CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2, false},
    {CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost, false},           {CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2, false},
    {CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister, false},
};

// Decoded by HandleDriverLaunch (kernel_launches.cpp).
constexpr ApiCallbackId kDriverLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
};

// Graph host nodes' functions, swapped for a trampoline (graph_host_nodes.h):
// the runtime's parameter changes, which record nothing, and the driver
// calls inside the runtime's where the swap is made or undone.
constexpr ApiCallbackId kRuntimeHostNodeParams[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphHostNodeSetParams_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphExecHostNodeSetParams_v10020,
};
constexpr ApiCallbackId kDriverHostNodes[] = {
    CUPTI_DRIVER_TRACE_CBID_cuGraphAddHostNode,
    CUPTI_DRIVER_TRACE_CBID_cuGraphHostNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecHostNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphHostNodeGetParams,
};

constexpr ApiCallbackId kDriverKernelNodes[] = {
    CUPTI_DRIVER_TRACE_CBID_cuGraphAddKernelNode,
    CUPTI_DRIVER_TRACE_CBID_cuGraphAddKernelNode_v2,
};

// Driver calls decoded as events and waits (stream_event_calls.cpp), made by
// a library or a program outside a runtime call (the runtime's own are its
// calls'); the _ptsz ones (per_thread) take stream 0 as the per-thread
// default stream.
constexpr DriverCall kDriverEventCallList[] = {
    {CUPTI_DRIVER_TRACE_CBID_cuEventRecord, false},
    {CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz, true},
    {CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags, false},
    {CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz, true},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, false},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz, true},
    {CUPTI_DRIVER_TRACE_CBID_cuEventDestroy, false},
    {CUPTI_DRIVER_TRACE_CBID_cuEventDestroy_v2, false},
};
// Streams and host synchronization (stream_event_calls.cpp), as programs
// that use the driver directly (JAX's XLA) make them; the runtime's own make
// no record.
constexpr DriverCall kDriverStreamCallList[] = {
    {CUPTI_DRIVER_TRACE_CBID_cuStreamCreate, false},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority, false},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy, false},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2, false},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, false},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz, true},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamQuery, false},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamQuery_ptsz, true},
    {CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize, false},
    {CUPTI_DRIVER_TRACE_CBID_cuEventQuery, false},
    {CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, false},
};
template <size_t N>
constexpr std::array<ApiCallbackId, N> IdsOf(const DriverCall (&calls)[N]) {
  std::array<ApiCallbackId, N> ids{};
  for (size_t i = 0; i < N; ++i) ids[i] = calls[i].cbid;
  return ids;
}
constexpr auto kDriverEventCalls = IdsOf(kDriverEventCallList);
constexpr auto kDriverStreamCalls = IdsOf(kDriverStreamCallList);
constexpr auto kDriverCopyCalls = IdsOf(kDriverCopyCallList);
constexpr auto kDriverMemoryCalls = IdsOf(kDriverMemoryCallList);
constexpr auto kDriverHostFuncs = IdsOf(kDriverHostFuncCallList);

// Which decoder takes a driver call made outside a runtime call, and its
// stream 0, by callback id: one look-up on the driver's path.
enum class DriverFamily : uint8_t { kNone, kEvent, kStream, kHostFunc, kCopy, kMemory };
struct DriverCallInfo {
  DriverFamily family = DriverFamily::kNone;
  bool per_thread = false;
};
constexpr auto kDriverCallInfo = [] {
  std::array<DriverCallInfo, CUPTI_DRIVER_TRACE_CBID_SIZE> info{};
  auto add = [&info](const auto& calls, DriverFamily family) {
    for (const DriverCall& call : calls) info[call.cbid] = {family, call.per_thread};
  };
  add(kDriverEventCallList, DriverFamily::kEvent);
  add(kDriverStreamCallList, DriverFamily::kStream);
  add(kDriverHostFuncCallList, DriverFamily::kHostFunc);
  add(kDriverCopyCallList, DriverFamily::kCopy);
  add(kDriverMemoryCallList, DriverFamily::kMemory);
  return info;
}();

// Runtime calls the decoders model (kernel_launches.cpp, stream_event_calls.cpp,
// memory_calls.cpp, graph_calls.cpp).
constexpr ApiCallbackId kModeledRuntime[] = {
#define X(name) CUPTI_RUNTIME_TRACE_CBID_##name,
#include "tracer/api_calls/modeled_runtime_calls.def"
#undef X
};

constexpr EnabledCalls kAllEnabled[] = {
    {ApiDomain::kRuntime, kModeledRuntime},  {ApiDomain::kRuntime, kUnmodeledRuntime},
    {ApiDomain::kDriver, kDriverLaunches},   {ApiDomain::kDriver, kDriverKernelNodes},
    {ApiDomain::kDriver, kDriverEventCalls}, {ApiDomain::kDriver, kUnmodeledDriver},
    {ApiDomain::kDriver, kDriverMemoryCalls}, {ApiDomain::kDriver, kDriverHostFuncs},
    {ApiDomain::kDriver, kDriverCopyCalls},   {ApiDomain::kDriver, kDriverStreamCalls},
    {ApiDomain::kRuntime, kRuntimeHostNodeParams}, {ApiDomain::kDriver, kDriverHostNodes},
};
constexpr EnabledCalls kLaunchesOnly[] = {
    {ApiDomain::kDriver, kDriverLaunches},
    {ApiDomain::kDriver, kDriverKernelNodes},
};

template <size_t N>
bool Contains(const ApiCallbackId (&list)[N], ApiCallbackId cbid) {
  for (ApiCallbackId id : list)
    if (id == cbid) return true;
  return false;
}

// Modeled runtime calls whose name has _ptsz/_ptds (stream 0 means the
// per-thread default stream), by callback id: found once from the names in
// modeled_runtime_calls.def, not by searching the name in every callback.
std::bitset<CUPTI_RUNTIME_TRACE_CBID_SIZE> g_per_thread_runtime_calls;

void FindPerThreadRuntimeCalls() {
  struct Named {
    ApiCallbackId cbid;
    const char* name;
  };
  static constexpr Named kModeled[] = {
#define X(name) {CUPTI_RUNTIME_TRACE_CBID_##name, #name},
#include "tracer/api_calls/modeled_runtime_calls.def"
#undef X
  };
  for (const Named& call : kModeled)
    if (std::strstr(call.name, "_ptsz") != nullptr || std::strstr(call.name, "_ptds") != nullptr)
      g_per_thread_runtime_calls[call.cbid] = true;
}

bool IsPerThreadVariant(ApiCallbackId cbid) {
  return cbid < g_per_thread_runtime_calls.size() && g_per_thread_runtime_calls[cbid];
}

// Queries report "not ready" as an error code, which is still information.
bool IsQuery(ApiCallbackId cbid) {
  return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020 ||
         cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_ptsz_v7000 ||
         cbid == CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020 ||
         cbid == CUPTI_RUNTIME_TRACE_CBID_cudaEventElapsedTime_v3020 ||
         cbid == CUPTI_RUNTIME_TRACE_CBID_cudaEventElapsedTime_v12080;
}

// Entering a runtime call touches only this thread's state (the pending
// graph kernel node), so it runs without the tracer's lock; the host
// guards' part takes what it needs itself.
void OnRuntimeEntry(ApiCallbackId cbid, const ApiCall& call) {
  EnterRuntimeCall(call.tracer);
  if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddKernelNode_v10000) {
    const auto& params = call.params<cudaGraphAddKernelNode_v10000_params>();
    OpenPendingKernel(params.pNodeParams ? params.pNodeParams->kernelParams : nullptr);
  }
  GuardHostMemoryAtEntry(call, ApiDomain::kRuntime, cbid);
  FollowHostFuncAtEntry(call, cbid);
  FollowGraphHostNodeAtEntry(call, cbid);
}

void OnRuntimeExit(ApiCallbackId cbid, const ApiCall& call) {
  ApiCall c = call;
  c.per_thread_default = IsPerThreadVariant(cbid);
  LeaveRuntimeCall(c.tracer);
  if (host::HostGuards* guards = c.tracer.host_guards()) guards->Resume();  // what the entry opened
  const cudaError_t rc = c.result();
  if (rc != cudaSuccess && !(IsQuery(cbid) && rc == cudaErrorNotReady)) {  // failed calls do nothing
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddKernelNode_v10000) DiscardPendingKernel();
    HostFuncNotLaunched();
    return;
  }
  if (DecodeStreamOrEventCall(c, cbid) || DecodeMemoryCall(c, cbid) || DecodeGraphCall(c, cbid)) return;
  if (Contains(kUnmodeledRuntime, cbid)) c.tracer.CountUnmodeled(c.function_name);
}

// At API exit, outside a traced runtime call.
DriverCallInfo InfoOf(ApiCallbackId cbid) {
  return cbid < kDriverCallInfo.size() ? kDriverCallInfo[cbid] : DriverCallInfo{};
}
DriverFamily FamilyOf(ApiCallbackId cbid) { return InfoOf(cbid).family; }

STREAMCHECK_HOT void OnDriverCall(ApiCallbackId cbid, const ApiCall& call) {
  if (HandleDriverLaunch(call, cbid)) return;
  const DriverCallInfo info = InfoOf(cbid);
  ApiCall c = call;
  c.per_thread_default = info.per_thread;
  switch (info.family) {
    case DriverFamily::kCopy:
      if (host::HostGuards* guards = c.tracer.host_guards()) guards->Resume();  // what the entry opened
      if (c.driver_result() == CUDA_SUCCESS) DecodeDriverCopyCall(c, cbid);    // a failed one did nothing
      return;
    case DriverFamily::kMemory:
      if (c.driver_result() == CUDA_SUCCESS) DecodeDriverMemoryCall(c, cbid);  // a failed one did nothing
      return;
    case DriverFamily::kEvent:
      DecodeDriverEventCall(c, cbid);
      return;
    case DriverFamily::kStream:
      DecodeDriverStreamCall(c, cbid);
      return;
    case DriverFamily::kHostFunc:
      DecodeDriverHostFuncCall(c, cbid);
      return;
    case DriverFamily::kNone:
      c.tracer.CountUnmodeled(c.function_name);
      return;
  }
}

}  // namespace

std::span<const EnabledCalls> AllEnabledCalls() { return kAllEnabled; }
std::span<const EnabledCalls> LaunchCalls() { return kLaunchesOnly; }
bool IsDriverLaunch(ApiCallbackId cbid) { return Contains(kDriverLaunches, cbid); }

void InitApiRouting() {
  static std::once_flag once;
  std::call_once(once, FindPerThreadRuntimeCalls);
}

STREAMCHECK_HOT void RouteApiCall(Tracer& t, ApiDomain domain, ApiCallbackId cbid, const ApiCall& call) {
  // Entering a call only notes it in this thread's state: no lock.
  const uint64_t start = t.profile().Now();
  if (domain == ApiDomain::kRuntime && call.entry) {
    OnRuntimeEntry(cbid, call);
    return t.profile().Add(ProfilePhase::kUnlockedCallback, start);
  }
  if (domain == ApiDomain::kDriver && !call.entry && cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphHostNodeGetParams) {
    RestoreProgramHostNodeParams(call, cbid);  // inside cudaGraphHostNodeGetParams or not
    return t.profile().Add(ProfilePhase::kUnlockedCallback, start);
  }
  if (domain == ApiDomain::kDriver && (call.entry || InsideRuntimeCall())) {
    if (!HandleDriverLaunch(call, cbid) && call.entry) {
      if (InsideRuntimeCall()) {
        FollowHostFuncAtDriverEntry(call, cbid);
        FollowGraphHostNodeAtDriverEntry(call, cbid);
      } else {
        GuardHostMemoryAtEntry(call, domain, cbid);
        if (FamilyOf(cbid) == DriverFamily::kHostFunc) FollowDirectHostFuncAtEntry(call, cbid);
      }
    }
    return t.profile().Add(ProfilePhase::kUnlockedCallback, start);
  }
  {
    std::lock_guard<TracerLock> lock(t.tracer_lock());
    if (domain == ApiDomain::kRuntime) OnRuntimeExit(cbid, call);
    else OnDriverCall(cbid, call);
    t.profile().Add(ProfilePhase::kLockedCallback, start);
  }
  t.AwaitHostSynchronizationAnalysis();  // other threads' calls go on meanwhile
}

}  // namespace streamcheck::tracer
