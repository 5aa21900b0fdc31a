// A helper that synchronizes its stream before returning. Silent.
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <vector>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }
__global__ void reduce(const float* in, float* total, int n) { int i = threadIdx.x; if (i < n) atomicAdd(total, in[i]); }

static void run_and_wait(float* buf, cudaStream_t stream) {
  produce<<<4, 256, 0, stream>>>(buf, 1024);
  cudaStreamSynchronize(stream);
}
int main() {
  float *d, *h;
  cudaMalloc(&d, 4096); cudaMallocHost(&h, 4096);
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  run_and_wait(d, s1);
  cudaMemcpyAsync(h, d, 4096, cudaMemcpyDeviceToHost, s2);
  cudaStreamSynchronize(s2);
  return h[0] > 0;
}
