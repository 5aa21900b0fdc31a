// The driver API's streams, copies and synchronization are the runtime's:
// cuMemcpyDtoHAsync writes the pinned buffer on `s`, and the host reads it
// before cuStreamSynchronize (racy) or after (fixed); cuMemsetD32Async on
// another stream overwrites what a kernel still reads (racy_memset).
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void spin_then_fill(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1;
}

float racy(float* device, float* pinned, int n) {
  CUstream s;
  cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
  spin_then_fill<<<(n + 255) / 256, 256, 0, reinterpret_cast<cudaStream_t>(s)>>>(device, n);
  cuMemcpyDtoHAsync(pinned, reinterpret_cast<CUdeviceptr>(device), n * sizeof(float), s);
  const float first = pinned[0];  // expected-warning:23{{host-device-race}}{{the host reads `pinned` while cuMemcpyDtoHAsync on stream `s` (non-blocking) may still write it}}
  cuStreamSynchronize(s);
  return first;
}

float fixed(float* device, float* pinned, int n) {
  CUstream s;
  cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
  spin_then_fill<<<(n + 255) / 256, 256, 0, reinterpret_cast<cudaStream_t>(s)>>>(device, n);
  cuMemcpyDtoHAsync(pinned, reinterpret_cast<CUdeviceptr>(device), n * sizeof(float), s);
  cuStreamSynchronize(s);
  return pinned[0];
}

void racy_memset(float* device, int n) {
  CUstream a, b;
  cuStreamCreate(&a, CU_STREAM_NON_BLOCKING);
  cuStreamCreate(&b, CU_STREAM_NON_BLOCKING);
  spin_then_fill<<<(n + 255) / 256, 256, 0, reinterpret_cast<cudaStream_t>(a)>>>(device, n);
  cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(device), 0, n, b);  // expected-warning:3{{cross-stream-race}}
  cuCtxSynchronize();
}
