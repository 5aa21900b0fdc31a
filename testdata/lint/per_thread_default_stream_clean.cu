// With the per-thread default stream, handle 0 is the thread's own blocking stream: same-stream order. Silent.
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
  produce<<<4, 256, 0, cudaStreamPerThread>>>(a, 1024);
  consume<<<4, 256, 0, cudaStreamPerThread>>>(a, b, 1024);
  cudaStreamSynchronize(cudaStreamPerThread);
  return 0;
}
