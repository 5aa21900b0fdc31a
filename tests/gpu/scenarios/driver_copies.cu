// nvcc-flags: -lcuda
// A program that copies through the driver, as JAX's XLA and Numba do: a
// kernel fills a buffer, cuMemcpyDtoHAsync_v2 copies it into pinned memory
// on the same stream, and cuMemsetD32Async then clears the buffer for the
// next round. Racy: the host reads the pinned copy without waiting for the
// stream; fixed: after cuStreamSynchronize.
#include "driver_api.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  CHECK(cudaFree(nullptr));  // the runtime's context, which the driver calls use
  CUstream s;
  CU_CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  float* device;
  CHECK(cudaMalloc(&device, kN * sizeof(float)));
  float* pinned;
  CHECK(cudaHostAlloc(&pinned, kN * sizeof(float), cudaHostAllocDefault));
  spin_then_fill<<<64, 256, 0, reinterpret_cast<cudaStream_t>(s)>>>(device, kBusyNs, kN);
  CU_CHECK(cuMemcpyDtoHAsync(pinned, reinterpret_cast<CUdeviceptr>(device), kN * sizeof(float), s));
  CU_CHECK(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(device), 0, kN, s));
  if (!racy) CU_CHECK(cuStreamSynchronize(s));
  HostRead(pinned, 1024);
  CU_CHECK(cuStreamSynchronize(s));
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(device));
  CU_CHECK(cuStreamDestroy(s));
  return 0;
}
