// A cooperative kernel launched through cudaLaunchCooperativeKernel with its
// arguments in a void* array (the conjugateGradient samples' pattern): the
// array is read to find the buffers, so the kernel's write to `x` races with
// the copy of `x` on another stream, and an event wait orders them.
#include <cuda_runtime.h>

__global__ void solve(float* x, const float* b, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = b[i]; }

void racy(float* x, float* b, float* h, int n) {
  cudaStream_t compute, copy;
  cudaStreamCreate(&compute);
  cudaStreamCreate(&copy);
  void* args[] = {&x, &b, &n};
  cudaLaunchCooperativeKernel((void*)solve, dim3(8), dim3(256), args, 0, compute);
  cudaMemcpyAsync(h, x, n * sizeof(float), cudaMemcpyDeviceToHost, copy);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
}

void fixed(float* x, float* b, float* h, int n) {
  cudaStream_t compute, copy;
  cudaEvent_t solved;
  cudaStreamCreate(&compute);
  cudaStreamCreate(&copy);
  cudaEventCreate(&solved);
  void* args[] = {&x, &b, &n};
  cudaLaunchCooperativeKernel((void*)solve, dim3(8), dim3(256), args, 0, compute);
  cudaEventRecord(solved, compute);
  cudaStreamWaitEvent(copy, solved, 0);
  cudaMemcpyAsync(h, x, n * sizeof(float), cudaMemcpyDeviceToHost, copy);
  cudaDeviceSynchronize();
}
