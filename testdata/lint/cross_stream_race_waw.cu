// cross-stream-race (write-after-write): two copies into one buffer on two streams.
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <vector>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }
__global__ void reduce(const float* in, float* total, int n) { int i = threadIdx.x; if (i < n) atomicAdd(total, in[i]); }

int main() {
  float *d, *h1, *h2;
  cudaMalloc(&d, 4096); cudaMallocHost(&h1, 4096); cudaMallocHost(&h2, 4096);
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  cudaMemcpyAsync(d, h1, 4096, cudaMemcpyHostToDevice, s1);
  cudaMemcpyAsync(d, h2, 4096, cudaMemcpyHostToDevice, s2);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
  return 0;
}
