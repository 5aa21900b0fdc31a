// Polling in a macro, as the samples do to overlap host work: a loop until
// cudaStreamQuery stops returning cudaErrorNotReady orders the host after the
// stream; a single query does not.
#include <cuda_runtime.h>

#define WAIT_FOR(s) while (cudaStreamQuery(s) == cudaErrorNotReady) { }
#define BUSY(s) (cudaStreamQuery(s) == cudaErrorNotReady)

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }

float racy(float* d, float* h, int n, cudaStream_t s, long* counter) {
  produce<<<4, 256, 0, s>>>(d, n);
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  if (BUSY(s)) ++*counter;
  return h[0];  // expected-warning:10{{host-device-race}}
}

float fixed(float* d, float* h, int n, cudaStream_t s) {
  produce<<<4, 256, 0, s>>>(d, n);
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  WAIT_FOR(s);
  return h[0];
}
