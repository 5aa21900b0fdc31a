// free() of a registered host buffer an async copy may still write is
// free-while-in-use; of a pageable one, pageable-async-copy (the staged copy
// may or may not have run); the buffer a copy reads from pageable memory is
// free to go when the call returns.
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <vector>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }
__global__ void reduce(const float* in, float* total, int n) { int i = threadIdx.x; if (i < n) atomicAdd(total, in[i]); }

int main() {
  float* d;
  cudaMalloc(&d, 4096);
  float* h = (float*)malloc(4096);
  cudaHostRegister(h, 4096, cudaHostRegisterDefault);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaMemcpyAsync(h, d, 4096, cudaMemcpyDeviceToHost, s);
  free(h);  // expected-warning:3{{free-while-in-use}}
  float* pageable = (float*)malloc(4096);
  cudaMemcpyAsync(pageable, d, 4096, cudaMemcpyDeviceToHost, s);  // expected-warning:3{{pageable-async-copy}}
  free(pageable);
  float* src = (float*)malloc(4096);
  cudaMemcpyAsync(d, src, 4096, cudaMemcpyHostToDevice, s);
  free(src);
  cudaStreamSynchronize(s);
  return 0;
}
