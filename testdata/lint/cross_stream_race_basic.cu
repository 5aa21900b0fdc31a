// cross-stream-race: a kernel on s2 reads what a kernel on s1 writes, no event between.
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
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  produce<<<4, 256, 0, s1>>>(a, 1024);
  consume<<<4, 256, 0, s2>>>(a, b, 1024);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
  return 0;
}
