// Per-stream disjoint chunks in a loop (stream[i] with ptr + i*chunk), then one device sync. Silent.
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <vector>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }
__global__ void reduce(const float* in, float* total, int n) { int i = threadIdx.x; if (i < n) atomicAdd(total, in[i]); }

int main() {
  const int kStreams = 4, chunk = 1 << 16;
  float* d;
  cudaMalloc(&d, kStreams * chunk * sizeof(float));
  cudaStream_t streams[kStreams];
  for (int i = 0; i < kStreams; ++i) cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking);
  for (int i = 0; i < kStreams; ++i) {
    cudaMemsetAsync(d + i * chunk, 0, chunk * sizeof(float), streams[i]);
    produce<<<chunk / 256, 256, 0, streams[i]>>>(d + i * chunk, chunk);
  }
  cudaDeviceSynchronize();
  cudaFree(d);
  return 0;
}
