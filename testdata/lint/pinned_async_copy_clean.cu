// Pinned (cudaMallocHost) and registered (cudaHostRegister) memory copy asynchronously. Silent.
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <vector>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }
__global__ void reduce(const float* in, float* total, int n) { int i = threadIdx.x; if (i < n) atomicAdd(total, in[i]); }

int main() {
  float *d, *pinned;
  cudaMalloc(&d, 4096);
  cudaMallocHost(&pinned, 4096);
  float* reg = (float*)malloc(4096);
  cudaHostRegister(reg, 4096, cudaHostRegisterDefault);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaMemcpyAsync(d, pinned, 4096, cudaMemcpyHostToDevice, s);
  cudaMemcpyAsync(reg, d, 4096, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  return 0;
}
