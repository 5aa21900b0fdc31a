// A loop that polls each stream and counts its successes (nccl-tests' wait for
// a test's streams: `if (cudaStreamQuery(s[i]) == cudaSuccess) { done[i] = 1;
// remaining--; }` in `while (remaining)`) leaves only once every query has
// succeeded: the host is ordered after the polled work (fixed). A loop that
// leaves on a counter the success branch does not change orders nothing
// (racy).
#include <cuda_runtime.h>

__global__ void produce(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

float fixed_flag(float* d, float* pinned, cudaStream_t s) {
  produce<<<4, 256, 0, s>>>(d, 1024);
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  bool done = false;
  while (!done) {
    cudaError_t err = cudaStreamQuery(s);
    if (err == cudaSuccess) done = true;
  }
  return pinned[0];
}

float fixed_counted(float* d, float* pinned, cudaStream_t s) {
  produce<<<4, 256, 0, s>>>(d, 1024);
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  int remaining = 1;
  while (remaining) {
    cudaError_t err = cudaStreamQuery(s);
    if (err == cudaSuccess) {
      remaining--;
    } else if (err != cudaErrorNotReady) {
      break;
    }
  }
  return pinned[0];
}

float racy_tries(float* d, float* pinned, cudaStream_t s) {
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  int ready = 0;
  for (int tries = 0; tries < 100; ++tries) {
    if (cudaStreamQuery(s) == cudaSuccess) ready = 1;
  }
  (void)ready;
  return pinned[0];  // expected-warning:10{{host-device-race}}
}
