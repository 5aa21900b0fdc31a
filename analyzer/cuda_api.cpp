#include "analyzer/cuda_api.h"

namespace streamcheck::lint {
namespace {

using K = ApiKind;
// clang-format off
// name, kind, stream, dst, src, count, copy_kind, event, event2 (-1: none)
constexpr ApiModel kApis[] = {
  {"cudaLaunchKernel", K::kKernelLaunch, 5, -1, -1, -1, -1, -1, -1},
  {"cudaLaunchCooperativeKernel", K::kKernelLaunch, 5, -1, -1, -1, -1, -1, -1},
  {"cudaLaunchKernelEx", K::kKernelLaunch, -1, -1, -1, -1, -1, -1, -1},
  {"cudaMemcpyAsync", K::kMemcpyAsync, 4, 0, 1, 2, 3, -1, -1},
  {"cudaMemcpy2DAsync", K::kMemcpyAsync, 7, 0, 2, -1, 6, -1, -1},
  {"cudaMemcpy3DAsync", K::kMemcpyAsync, 1, -1, -1, -1, -1, -1, -1},
  {"cudaMemcpyToSymbolAsync", K::kMemcpyAsync, 5, 0, 1, 2, 4, -1, -1},
  {"cudaMemcpyFromSymbolAsync", K::kMemcpyAsync, 5, 0, 1, 2, 4, -1, -1},
  {"cudaMemcpyPeerAsync", K::kMemcpyAsync, 5, 0, 2, 4, -1, -1, -1},
  {"cudaMemcpy", K::kMemcpySync, -1, 0, 1, 2, 3, -1, -1},
  {"cudaMemcpy2D", K::kMemcpySync, -1, 0, 2, -1, 6, -1, -1},
  {"cudaMemcpyToSymbol", K::kMemcpySync, -1, 0, 1, 2, 4, -1, -1},
  {"cudaMemcpyFromSymbol", K::kMemcpySync, -1, 0, 1, 2, 4, -1, -1},
  {"cudaMemcpyPeer", K::kMemcpySync, -1, 0, 2, 4, -1, -1, -1},
  {"cudaMemsetAsync", K::kMemsetAsync, 3, 0, -1, 2, -1, -1, -1},
  {"cudaMemset2DAsync", K::kMemsetAsync, 5, 0, -1, -1, -1, -1, -1},
  {"cudaMemset", K::kMemsetSync, -1, 0, -1, 2, -1, -1, -1},
  {"cudaMemset2D", K::kMemsetSync, -1, 0, -1, -1, -1, -1, -1},
  {"cudaMalloc", K::kMallocDevice, -1, 0, -1, 1, -1, -1, -1},
  {"cudaMallocPitch", K::kMallocDevice, -1, 0, -1, -1, -1, -1, -1},
  {"cudaMallocAsync", K::kMallocAsync, 2, 0, -1, 1, -1, -1, -1},
  {"cudaMallocFromPoolAsync", K::kMallocAsync, 3, 0, -1, 1, -1, -1, -1},
  {"cudaMallocHost", K::kMallocPinned, -1, 0, -1, 1, -1, -1, -1},
  {"cudaHostAlloc", K::kMallocPinned, -1, 0, -1, 1, -1, -1, -1},
  {"cudaMallocManaged", K::kMallocManaged, -1, 0, -1, 1, -1, -1, -1},
  {"cudaHostRegister", K::kHostRegister, -1, 0, -1, 1, -1, -1, -1},
  {"malloc", K::kMallocPageable, -1, -1, -1, 0, -1, -1, -1},
  {"calloc", K::kMallocPageable, -1, -1, -1, -1, -1, -1, -1},
  {"aligned_alloc", K::kMallocPageable, -1, -1, -1, 1, -1, -1, -1},
  {"cudaFree", K::kFreeDevice, -1, 0, -1, -1, -1, -1, -1},
  {"cudaFreeHost", K::kFreeDevice, -1, 0, -1, -1, -1, -1, -1},
  {"cudaFreeAsync", K::kFreeAsync, 1, 0, -1, -1, -1, -1, -1},
  {"free", K::kFreeHost, -1, 0, -1, -1, -1, -1, -1},
  {"cudaStreamCreate", K::kStreamCreate, 0, -1, -1, -1, -1, -1, -1},
  {"cudaStreamCreateWithFlags", K::kStreamCreate, 0, -1, -1, -1, -1, -1, -1},
  {"cudaStreamCreateWithPriority", K::kStreamCreate, 0, -1, -1, -1, -1, -1, -1},
  {"cudaStreamSynchronize", K::kStreamSync, 0, -1, -1, -1, -1, -1, -1},
  {"cudaStreamQuery", K::kStreamQuery, 0, -1, -1, -1, -1, -1, -1},
  {"cudaStreamWaitEvent", K::kStreamWaitEvent, 0, -1, -1, -1, -1, 1, -1},
  {"cudaEventCreate", K::kEventCreate, -1, -1, -1, -1, -1, 0, -1},
  {"cudaEventCreateWithFlags", K::kEventCreate, -1, -1, -1, -1, -1, 0, -1},
  {"cudaEventRecord", K::kEventRecord, 1, -1, -1, -1, -1, 0, -1},
  {"cudaEventRecordWithFlags", K::kEventRecord, 1, -1, -1, -1, -1, 0, -1},
  {"cudaEventSynchronize", K::kEventSync, -1, -1, -1, -1, -1, 0, -1},
  {"cudaEventQuery", K::kEventQuery, -1, -1, -1, -1, -1, 0, -1},
  {"cudaEventElapsedTime", K::kEventElapsed, -1, -1, -1, -1, -1, 1, 2},
  {"cudaDeviceSynchronize", K::kDeviceSync, -1, -1, -1, -1, -1, -1, -1},
  {"cudaThreadSynchronize", K::kDeviceSync, -1, -1, -1, -1, -1, -1, -1},
  {"cudaDeviceReset", K::kDeviceSync, -1, -1, -1, -1, -1, -1, -1},
  {"cudaStreamBeginCapture", K::kBeginCapture, 0, -1, -1, -1, -1, -1, -1},
  {"cudaStreamBeginCaptureToGraph", K::kBeginCapture, 0, -1, -1, -1, -1, -1, -1},
  {"cudaStreamEndCapture", K::kEndCapture, 0, 1, -1, -1, -1, -1, -1},
  {"cudaGraphInstantiate", K::kGraphInstantiate, -1, 0, 1, -1, -1, -1, -1},
  {"cudaGraphInstantiateWithFlags", K::kGraphInstantiate, -1, 0, 1, -1, -1, -1, -1},
  {"cudaGraphLaunch", K::kGraphLaunch, 1, -1, 0, -1, -1, -1, -1},
  // name, kind, stream, dst, src, count, copy_kind, event, event2, graph
  {"cudaGraphCreate", K::kGraphCreate, -1, 0, -1, -1, -1, -1, -1, -1},
  {"cudaGraphAddMemAllocNode", K::kGraphMemAllocNode, -1, 4, -1, -1, -1, -1, -1, 1},
  {"cudaGraphAddMemFreeNode", K::kGraphMemFreeNode, -1, 4, -1, -1, -1, -1, -1, 1},
  {"cudaGraphAddMemcpyNode1D", K::kGraphMemcpyNode, -1, 4, 5, 6, 7, -1, -1, 1},
  {"cudaLaunchHostFunc", K::kHostFunc, 0, -1, -1, -1, -1, -1, -1},
  {"cudaStreamAddCallback", K::kHostFunc, 0, -1, -1, -1, -1, -1, -1},
  // The driver API: the same operations, its own argument order (CUdeviceptr
  // arguments are integers; a cast from a runtime pointer names the buffer).
  // name, kind, stream, dst, src, count, copy_kind, event, event2, graph, direction
  {"cuStreamCreate", K::kStreamCreate, 0, -1, -1, -1, -1, -1, -1},
  {"cuStreamCreateWithPriority", K::kStreamCreate, 0, -1, -1, -1, -1, -1, -1},
  {"cuStreamSynchronize", K::kStreamSync, 0, -1, -1, -1, -1, -1, -1},
  {"cuStreamQuery", K::kStreamQuery, 0, -1, -1, -1, -1, -1, -1},
  {"cuStreamWaitEvent", K::kStreamWaitEvent, 0, -1, -1, -1, -1, 1, -1},
  {"cuEventCreate", K::kEventCreate, -1, -1, -1, -1, -1, 0, -1},
  {"cuEventRecord", K::kEventRecord, 1, -1, -1, -1, -1, 0, -1},
  {"cuEventRecordWithFlags", K::kEventRecord, 1, -1, -1, -1, -1, 0, -1},
  {"cuEventSynchronize", K::kEventSync, -1, -1, -1, -1, -1, 0, -1},
  {"cuEventQuery", K::kEventQuery, -1, -1, -1, -1, -1, 0, -1},
  {"cuEventElapsedTime", K::kEventElapsed, -1, -1, -1, -1, -1, 1, 2},
  {"cuCtxSynchronize", K::kDeviceSync, -1, -1, -1, -1, -1, -1, -1},
  {"cuMemAlloc", K::kMallocDevice, -1, 0, -1, 1, -1, -1, -1},
  {"cuMemAllocPitch", K::kMallocDevice, -1, 0, -1, -1, -1, -1, -1},
  {"cuMemAllocAsync", K::kMallocAsync, 2, 0, -1, 1, -1, -1, -1},
  {"cuMemAllocFromPoolAsync", K::kMallocAsync, 3, 0, -1, 1, -1, -1, -1},
  {"cuMemAllocHost", K::kMallocPinned, -1, 0, -1, 1, -1, -1, -1},
  {"cuMemHostAlloc", K::kMallocPinned, -1, 0, -1, 1, -1, -1, -1},
  {"cuMemAllocManaged", K::kMallocManaged, -1, 0, -1, 1, -1, -1, -1},
  {"cuMemHostRegister", K::kHostRegister, -1, 0, -1, 1, -1, -1, -1},
  {"cuMemFree", K::kFreeDevice, -1, 0, -1, -1, -1, -1, -1},
  {"cuMemFreeHost", K::kFreeDevice, -1, 0, -1, -1, -1, -1, -1},
  {"cuMemFreeAsync", K::kFreeAsync, 1, 0, -1, -1, -1, -1, -1},
  {"cuMemcpyAsync", K::kMemcpyAsync, 3, 0, 1, 2, -1, -1, -1, -1, 4},
  {"cuMemcpyHtoDAsync", K::kMemcpyAsync, 3, 0, 1, 2, -1, -1, -1, -1, 1},
  {"cuMemcpyDtoHAsync", K::kMemcpyAsync, 3, 0, 1, 2, -1, -1, -1, -1, 2},
  {"cuMemcpyDtoDAsync", K::kMemcpyAsync, 3, 0, 1, 2, -1, -1, -1, -1, 3},
  {"cuMemcpy", K::kMemcpySync, -1, 0, 1, 2, -1, -1, -1, -1, 4},
  {"cuMemcpyHtoD", K::kMemcpySync, -1, 0, 1, 2, -1, -1, -1, -1, 1},
  {"cuMemcpyDtoH", K::kMemcpySync, -1, 0, 1, 2, -1, -1, -1, -1, 2},
  {"cuMemcpyDtoD", K::kMemcpySync, -1, 0, 1, 2, -1, -1, -1, -1, 3},
  // Counts in elements of 1, 2 or 4 bytes: the extent is left unknown.
  {"cuMemsetD8Async", K::kMemsetAsync, 3, 0, -1, -1, -1, -1, -1},
  {"cuMemsetD16Async", K::kMemsetAsync, 3, 0, -1, -1, -1, -1, -1},
  {"cuMemsetD32Async", K::kMemsetAsync, 3, 0, -1, -1, -1, -1, -1},
  {"cuMemsetD8", K::kMemsetSync, -1, 0, -1, -1, -1, -1, -1},
  {"cuMemsetD16", K::kMemsetSync, -1, 0, -1, -1, -1, -1, -1},
  {"cuMemsetD32", K::kMemsetSync, -1, 0, -1, -1, -1, -1, -1},
  {"cuLaunchKernel", K::kKernelLaunch, 8, -1, -1, -1, -1, -1, -1},
  {"cuLaunchHostFunc", K::kHostFunc, 0, -1, -1, -1, -1, -1, -1},
  {"memcpy", K::kHostMemcpy, -1, 0, 1, 2, -1, -1, -1},
  {"memset", K::kHostMemset, -1, 0, -1, 2, -1, -1, -1},
};
// clang-format on

std::string_view WithoutSuffix(std::string_view name) {
  for (std::string_view suffix : {"_ptsz", "_ptds", "_v2"}) {
    if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix) {
      return name.substr(0, name.size() - suffix.size());
    }
  }
  return name;
}

}  // namespace

const ApiModel* FindApi(std::string_view name) {
  name = WithoutSuffix(WithoutSuffix(name));
  for (const ApiModel& api : kApis) {
    if (api.name == name) return &api;
  }
  if (name == "memmove") return FindApi("memcpy");
  return nullptr;
}

bool IsHostClock(std::string_view q) {
  return q == "std::chrono::steady_clock::now" || q == "std::chrono::system_clock::now" ||
         q == "std::chrono::high_resolution_clock::now" || q == "std::chrono::_V2::steady_clock::now" ||
         q == "std::chrono::_V2::system_clock::now" || q == "clock" || q == "gettimeofday" ||
         q == "clock_gettime" || q == "omp_get_wtime" || q == "MPI_Wtime";
}

}  // namespace streamcheck::lint
