// Two streams only read the same input: read/read sharing is not a race.
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <vector>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }
__global__ void reduce(const float* in, float* total, int n) { int i = threadIdx.x; if (i < n) atomicAdd(total, in[i]); }

int main() {
  float *in, *o1, *o2;
  cudaMalloc(&in, 4096); cudaMalloc(&o1, 4096); cudaMalloc(&o2, 4096);
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  consume<<<4, 256, 0, s1>>>(in, o1, 1024);
  consume<<<4, 256, 0, s2>>>(in, o2, 1024);
  cudaDeviceSynchronize();
  return 0;
}
