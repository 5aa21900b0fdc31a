// The guide's loop, but the host reads each chunk's result right after issuing its copy, before synchronizing.
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <vector>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }
__global__ void reduce(const float* in, float* total, int n) { int i = threadIdx.x; if (i < n) atomicAdd(total, in[i]); }

int main() {
  const int size = 1 << 20;
  float *hostPtr, *inputDevPtr, *outputDevPtr;
  cudaMallocHost(&hostPtr, 2 * size * sizeof(float));
  cudaMalloc(&inputDevPtr, 2 * size * sizeof(float));
  cudaMalloc(&outputDevPtr, 2 * size * sizeof(float));
  cudaStream_t stream[2];
  for (int i = 0; i < 2; ++i) cudaStreamCreate(&stream[i]);
  float total = 0;
  for (int i = 0; i < 2; ++i) {
    cudaMemcpyAsync(inputDevPtr + i * size, hostPtr + i * size, size * sizeof(float), cudaMemcpyHostToDevice, stream[i]);
    consume<<<100, 512, 0, stream[i]>>>(inputDevPtr + i * size, outputDevPtr + i * size, size);
    cudaMemcpyAsync(hostPtr + i * size, outputDevPtr + i * size, size * sizeof(float), cudaMemcpyDeviceToHost, stream[i]);
    total += hostPtr[i * size];  // expected-warning:14{{host-device-race}}
  }
  cudaDeviceSynchronize();
  return total > 0;
}
