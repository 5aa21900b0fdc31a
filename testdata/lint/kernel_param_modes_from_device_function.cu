// Read/write modes come from the kernel body and the device functions it calls.
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <vector>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }
__global__ void reduce(const float* in, float* total, int n) { int i = threadIdx.x; if (i < n) atomicAdd(total, in[i]); }

__device__ void store(float* p, int i, float v) { p[i] = v; }
__device__ float load(const float* p, int i) { return p[i]; }
__global__ void copy_through(float* dst, float* src, int n) { int i = threadIdx.x; if (i < n) store(dst, i, load(src, i)); }
int main() {
  float *a, *b, *c;
  cudaMalloc(&a, 4096); cudaMalloc(&b, 4096); cudaMalloc(&c, 4096);
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  copy_through<<<1, 256, 0, s1>>>(b, a, 256);
  copy_through<<<1, 256, 0, s2>>>(c, a, 256);
  copy_through<<<1, 256, 0, s2>>>(a, c, 256);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
  return 0;
}
