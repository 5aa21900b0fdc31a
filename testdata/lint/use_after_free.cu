// A kernel launched on a buffer already freed.
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <vector>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }
__global__ void reduce(const float* in, float* total, int n) { int i = threadIdx.x; if (i < n) atomicAdd(total, in[i]); }

int main() {
  float *a, *b;
  cudaMalloc(&a, 4096); cudaMalloc(&b, 4096);
  cudaFree(a);
  consume<<<4, 256>>>(a, b, 1024);  // expected-warning:3{{use-after-free}}
  cudaDeviceSynchronize();
  return 0;
}
