// The CUDA runtime and driver (and host libc) calls the analysis models, one
// table row per API: which argument is the stream, the event, the buffers. Grep an API
// name here to find its row; cuda_api_semantics.cpp gives each ApiKind its
// ordering semantics.
#pragma once

#include <string_view>

namespace streamcheck::lint {

enum class ApiKind {
  kKernelLaunch,    // cudaLaunchKernel / cudaLaunchKernelEx / cudaLaunchCooperativeKernel
  kMemcpyAsync,     // dst, src, count, kind, stream
  kMemcpySync,      // cudaMemcpy*: legacy stream; host waits unless device-to-device
  kMemsetAsync,     // dst, count, stream
  kMemsetSync,      // cudaMemset*: legacy stream, asynchronous to the host
  kMallocDevice,    // cudaMalloc (out pointer)
  kMallocAsync,     // cudaMallocAsync (out pointer, stream)
  kMallocPinned,    // cudaMallocHost / cudaHostAlloc
  kMallocManaged,   // cudaMallocManaged
  kHostRegister,    // cudaHostRegister (pointer)
  kMallocPageable,  // malloc / calloc / aligned_alloc (result)
  kFreeDevice,      // cudaFree / cudaFreeHost: synchronize the device first
  kFreeAsync,       // cudaFreeAsync(ptr, stream)
  kFreeHost,        // free / delete: no synchronization at all
  kStreamCreate,    // (&stream[, flags])
  kStreamSync,
  kStreamQuery,
  kStreamWaitEvent,  // (stream, event)
  kEventCreate,
  kEventRecord,      // (event, stream)
  kEventSync,
  kEventQuery,
  kEventElapsed,     // (&ms, start, stop)
  kDeviceSync,
  kBeginCapture,     // (stream, mode)
  kEndCapture,       // (stream, &graph)
  kGraphInstantiate,  // (&exec, graph, ...)
  kGraphLaunch,       // (exec, stream)
  kGraphCreate,       // (&graph, flags)
  kGraphMemAllocNode,  // (&node, graph, deps, n, &params): params.dptr is the allocation
  kGraphMemFreeNode,   // (&node, graph, deps, n, ptr)
  kGraphMemcpyNode,    // (&node, graph, deps, n, dst, src, count, kind)
  kHostFunc,          // cudaLaunchHostFunc / cudaStreamAddCallback (stream first)
  kHostClock,         // std::chrono::*::now, clock, gettimeofday, ...
  kHostMemcpy,        // memcpy / memmove (dst, src)
  kHostMemset,        // memset (dst)
};

struct ApiModel {
  std::string_view name;
  ApiKind kind;
  int stream = -1;  // argument index of the stream (-1: none or the legacy stream)
  int dst = -1;     // written buffer (or the out-parameter of an allocation)
  int src = -1;     // read buffer
  int count = -1;   // byte count
  int copy_kind = -1;  // cudaMemcpyKind argument
  int event = -1;
  int event2 = -1;  // stop event of cudaEventElapsedTime
  int graph = -1;   // the graph a node is added to
  int direction = -1;  // a CopyKind the API's name fixes (cuMemcpyDtoHAsync), when it has no copy_kind argument
};

// nullptr when the call is not modeled. `name` is the callee's plain name;
// the per-thread variants (_ptsz, _ptds) and _v2 suffixes are accepted.
const ApiModel* FindApi(std::string_view name);
// The host clocks whose readings bracket a timed region.
bool IsHostClock(std::string_view qualified_name);

// cudaStreamNonBlocking, as in driver_types.h.
inline constexpr int kCudaStreamNonBlocking = 1;
// cudaMemcpyKind values.
enum class CopyKind { kHostToHost = 0, kHostToDevice = 1, kDeviceToHost = 2, kDeviceToDevice = 3, kDefault = 4 };

}  // namespace streamcheck::lint
