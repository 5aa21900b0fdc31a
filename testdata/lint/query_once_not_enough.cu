// One cudaStreamQuery whose result is ignored orders nothing.
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <vector>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }
__global__ void reduce(const float* in, float* total, int n) { int i = threadIdx.x; if (i < n) atomicAdd(total, in[i]); }

int main() {
  float *d, *h;
  cudaMalloc(&d, 4096); cudaMallocHost(&h, 4096);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaMemcpyAsync(h, d, 4096, cudaMemcpyDeviceToHost, s);
  cudaStreamQuery(s);
  float x = h[0];  // expected-warning:13{{host-device-race}}
  cudaStreamSynchronize(s);
  return x > 0;
}
