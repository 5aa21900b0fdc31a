// The helpers main.cu calls (see launchers.h), and a race of this file's own.
#include "launchers.h"

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }

void launch_produce(float* d, int n, cudaStream_t s) { produce<<<(n + 255) / 256, 256, 0, s>>>(d, n); }

void copy_back(float* h, const float* d, int n, cudaStream_t s) {
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
}

void finish(cudaStream_t s) {
  if (cudaStreamSynchronize(s) != cudaSuccess) cudaGetLastError();
}

void produce_and_wait(float* d, int n, cudaStream_t s) {
  launch_produce(d, n, s);
  finish(s);
}

float racy_here(float* d, float* h, int n) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  launch_produce(d, n, s);
  copy_back(h, d, n, s);
  return h[0];  // expected-warning:10{{host-device-race}}
}

float fixed_here(float* d, float* h, int n) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  launch_produce(d, n, s);
  copy_back(h, d, n, s);
  finish(s);
  return h[0];
}
