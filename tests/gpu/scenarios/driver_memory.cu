// nvcc-flags: -lcuda
// A program that allocates through the driver, as XLA and driver-API
// programs do: a cuMemAlloc buffer a kernel fills on one stream, copied on a
// second stream into a cuMemAllocAsync buffer, which a third kernel scales
// into cuMemAllocManaged memory; all freed through the driver. The tracer
// knows the buffers only from the driver's calls, so it bounds the kernels'
// pointers by them. Racy: the copy's stream never waits for the fill;
// fixed: it waits for an event recorded behind it.
#include "driver_api.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  CHECK(cudaFree(nullptr));  // the runtime's context, which the driver calls use
  CUstream s1, s2;
  CU_CHECK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
  CU_CHECK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
  CUevent filled;
  CU_CHECK(cuEventCreate(&filled, CU_EVENT_DISABLE_TIMING));
  const size_t bytes = kN * sizeof(float);
  CUdeviceptr device, pooled, managed;
  CU_CHECK(cuMemAlloc(&device, bytes));
  CU_CHECK(cuMemAllocAsync(&pooled, bytes, s2));
  CU_CHECK(cuMemAllocManaged(&managed, bytes, CU_MEM_ATTACH_GLOBAL));
  float* d = reinterpret_cast<float*>(device);
  spin_then_fill<<<64, 256, 0, reinterpret_cast<cudaStream_t>(s1)>>>(d, kBusyNs, kN);
  CU_CHECK(cuEventRecord(filled, s1));
  if (!racy) CU_CHECK(cuStreamWaitEvent(s2, filled, 0));
  CU_CHECK(cuMemcpyDtoDAsync(pooled, device, bytes, s2));
  scale<<<64, 256, 0, reinterpret_cast<cudaStream_t>(s2)>>>(reinterpret_cast<const float*>(pooled),
                                                            reinterpret_cast<float*>(managed), kN);
  CU_CHECK(cuMemFreeAsync(pooled, s2));
  CU_CHECK(cuStreamSynchronize(s2));
  CU_CHECK(cuStreamSynchronize(s1));
  CU_CHECK(cuMemFree(managed));
  CU_CHECK(cuMemFree(device));
  CU_CHECK(cuEventDestroy(filled));
  CU_CHECK(cuStreamDestroy(s1));
  CU_CHECK(cuStreamDestroy(s2));
  Done("driver_memory", racy);
  return 0;
}
