// A synchronous cudaMemcpy D2H returns after the copy; the host then reads. Silent.
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <vector>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }
__global__ void reduce(const float* in, float* total, int n) { int i = threadIdx.x; if (i < n) atomicAdd(total, in[i]); }

int main() {
  float *d;
  float h[256];
  cudaMalloc(&d, sizeof h);
  produce<<<1, 256>>>(d, 256);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  return h[0] > 0;
}
