// A synchronize that only debug builds compile in (SYNC_AFTER_LAUNCH is not
// defined here) orders nothing in this build; one that always expands does.
#include <cuda_runtime.h>

#ifdef SYNC_AFTER_LAUNCH
#define DEBUG_SYNC(s) cudaStreamSynchronize(s)
#else
#define DEBUG_SYNC(s) ((void)(s))
#endif
#define ALWAYS_SYNC(s) cudaStreamSynchronize(s)

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }

float racy(float* d, float* h, int n, cudaStream_t s) {
  produce<<<4, 256, 0, s>>>(d, n);
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  DEBUG_SYNC(s);
  return h[0];  // expected-warning:10{{host-device-race}}
}

float fixed(float* d, float* h, int n, cudaStream_t s) {
  produce<<<4, 256, 0, s>>>(d, n);
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  ALWAYS_SYNC(s);
  return h[0];
}
