// nvcc-flags: -lcuda
// Pinned memory from the driver API (cuMemHostAlloc, as libraries that call
// the driver make it) filled by an asynchronous copy the host reads without
// waiting for. Fixed: the copy's stream is synchronized first.
#include <cuda.h>

#include "host_access.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  CHECK(cudaFree(nullptr));  // the runtime's context, which the driver calls use
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float* device;
  CHECK(cudaMalloc(&device, kN * sizeof(float)));
  void* pinned = nullptr;
  if (cuMemHostAlloc(&pinned, kN * sizeof(float), 0) != CUDA_SUCCESS) return 3;
  spin_then_fill<<<64, 256, 0, s>>>(device, kBusyNs, kN);
  CHECK(cudaMemcpyAsync(pinned, device, kN * sizeof(float), cudaMemcpyDeviceToHost, s));
  if (!racy) CHECK(cudaStreamSynchronize(s));
  HostRead(static_cast<float*>(pinned), 1024);
  CHECK(cudaDeviceSynchronize());
  if (cuMemFreeHost(pinned) != CUDA_SUCCESS) return 3;
  CHECK(cudaFree(device));
  Done("driver_pinned_copy", racy);
  return 0;
}
