// lint-flags: -fno-gnu-unique -fconserve-stack -fno-var-tracking-assignments
// GCC-only flags that reach a compile command through -Xcompiler are left out
// of the parse (clang's driver would stop at them); the race is still found.
#include <cuda_runtime.h>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }

void racy(float* a, float* b) {
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  produce<<<4, 256, 0, s1>>>(a, 1024);
  consume<<<4, 256, 0, s2>>>(a, b, 1024);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
}

void fixed(float* a, float* b) {
  cudaStream_t s1;
  cudaStreamCreate(&s1);
  produce<<<4, 256, 0, s1>>>(a, 1024);
  consume<<<4, 256, 0, s1>>>(a, b, 1024);
  cudaDeviceSynchronize();
}
