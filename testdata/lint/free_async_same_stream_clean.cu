// cudaFreeAsync on the stream that used the buffer is stream-ordered. Silent.
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
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaMallocAsync(&a, 4096, s);
  cudaMallocAsync(&b, 4096, s);
  consume<<<4, 256, 0, s>>>(a, b, 1024);
  cudaFreeAsync(a, s);
  cudaFreeAsync(b, s);
  cudaStreamSynchronize(s);
  return 0;
}
