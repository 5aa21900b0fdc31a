// Project helpers that wrap synchronization (`finish()`, `wait_for(s)`) and
// launches: followed into, a wrapper that synchronizes orders the host, and
// one that only checks errors does not.
#include <cuda_runtime.h>
#include <cstdlib>

static void check_last_error() { if (cudaGetLastError() != cudaSuccess) abort(); }
static void wait_for(cudaStream_t s) {
  if (cudaStreamSynchronize(s) != cudaSuccess) abort();
}
static void finish() { cudaDeviceSynchronize(); }

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }

float racy(float* d, float* h, int n, cudaStream_t s) {
  produce<<<4, 256, 0, s>>>(d, n);
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  check_last_error();
  return h[0];  // expected-warning:10{{host-device-race}}
}

float fixed_stream(float* d, float* h, int n, cudaStream_t s) {
  produce<<<4, 256, 0, s>>>(d, n);
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  wait_for(s);
  return h[0];
}

float fixed_device(float* d, float* h, int n, cudaStream_t s) {
  produce<<<4, 256, 0, s>>>(d, n);
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  finish();
  return h[0];
}
