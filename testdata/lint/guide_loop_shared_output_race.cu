// Per-stream chunks in, but every stream's kernel writes the whole shared output.
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <vector>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }
__global__ void reduce(const float* in, float* total, int n) { int i = threadIdx.x; if (i < n) atomicAdd(total, in[i]); }

int main() {
  const int size = 1024;
  float *in, *out;
  cudaMalloc(&in, 2 * size * sizeof(float));
  cudaMalloc(&out, size * sizeof(float));
  cudaStream_t stream[2];
  cudaStreamCreate(&stream[0]);
  cudaStreamCreate(&stream[1]);
  consume<<<4, 256, 0, stream[0]>>>(in, out, size);
  consume<<<4, 256, 0, stream[1]>>>(in + size, out, size);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
  return 0;
}
