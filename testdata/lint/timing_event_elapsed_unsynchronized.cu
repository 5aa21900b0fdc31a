// cudaEventElapsedTime before waiting for the stop event.
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <vector>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }
__global__ void reduce(const float* in, float* total, int n) { int i = threadIdx.x; if (i < n) atomicAdd(total, in[i]); }

int main() {
  float* a;
  cudaMalloc(&a, 4096);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, 0);
  produce<<<4, 256>>>(a, 1024);
  cudaEventRecord(stop, 0);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);  // expected-warning:3{{unsynchronized-timing}}
  return ms > 0;
}
