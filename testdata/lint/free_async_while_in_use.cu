// cudaFreeAsync on s2 while a kernel on s1 may still read the buffer.
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
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  cudaMallocAsync(&a, 4096, s1);
  cudaMallocAsync(&b, 4096, s1);
  consume<<<4, 256, 0, s1>>>(a, b, 1024);
  cudaFreeAsync(a, s2);  // expected-warning:3{{free-while-in-use}}
  cudaStreamSynchronize(s1);
  return 0;
}
