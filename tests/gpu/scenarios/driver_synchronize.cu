// nvcc-flags: -lcuda
// A program that drives CUDA itself, as JAX's XLA does: its stream made with
// cuStreamCreate (non-blocking), its waits through the driver. Three times a
// kernel fills a buffer that is copied into pinned memory, and the host reads
// it after cuStreamSynchronize, after cuEventSynchronize on an event recorded
// behind the copy, and after cuCtxSynchronize. Racy: the host waits for none.
#include "driver_api.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  CHECK(cudaFree(nullptr));  // the runtime's context, which the driver calls use
  CUstream s;
  CU_CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CUevent copied;
  CU_CHECK(cuEventCreate(&copied, CU_EVENT_DISABLE_TIMING));
  float* device;
  CHECK(cudaMalloc(&device, kN * sizeof(float)));
  float* pinned[3];
  for (float*& p : pinned) CHECK(cudaHostAlloc(&p, kN * sizeof(float), cudaHostAllocDefault));
  for (int wait = 0; wait < 3; ++wait) {
    spin_then_fill<<<64, 256, 0, s>>>(device, kBusyNs, kN);
    CHECK(cudaMemcpyAsync(pinned[wait], device, kN * sizeof(float), cudaMemcpyDeviceToHost, s));
    CU_CHECK(cuEventRecord(copied, s));
    if (!racy) {
      if (wait == 0) CU_CHECK(cuStreamSynchronize(s));
      if (wait == 1) CU_CHECK(cuEventSynchronize(copied));
      if (wait == 2) CU_CHECK(cuCtxSynchronize());
    }
    HostRead(pinned[wait], 1024);
  }
  CU_CHECK(cuStreamSynchronize(s));
  for (float* p : pinned) CHECK(cudaFreeHost(p));
  CHECK(cudaFree(device));
  CU_CHECK(cuEventDestroy(copied));
  CU_CHECK(cuStreamDestroy(s));
  Done("driver_synchronize", racy);
  return 0;
}
