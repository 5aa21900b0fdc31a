// Host clock around a kernel launch without waiting for it.
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
  auto start = std::chrono::high_resolution_clock::now();
  produce<<<4, 256>>>(a, 1024);
  auto stop = std::chrono::high_resolution_clock::now();  // expected-warning:15{{unsynchronized-timing}}
  return (stop - start).count() > 0;
}
