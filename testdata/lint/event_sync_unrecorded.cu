// cudaEventSynchronize on an event never recorded returns at once.
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
  cudaEvent_t e;
  cudaEventCreate(&e);
  cudaMemcpyAsync(h, d, 4096, cudaMemcpyDeviceToHost, s);
  cudaEventSynchronize(e);  // expected-warning:3{{wait-on-unrecorded-event}}
  float x = h[0];  // expected-warning:13{{host-device-race}}
  cudaStreamSynchronize(s);
  return x > 0;
}
