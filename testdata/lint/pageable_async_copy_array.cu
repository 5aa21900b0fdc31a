// cudaMemcpyAsync into a local array (pageable).
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <vector>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }
__global__ void reduce(const float* in, float* total, int n) { int i = threadIdx.x; if (i < n) atomicAdd(total, in[i]); }

int main() {
  float h[256];
  float* d;
  cudaMalloc(&d, sizeof h);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, s);  // expected-warning:3{{pageable-async-copy}}
  cudaStreamSynchronize(s);
  return h[0] > 0;
}
