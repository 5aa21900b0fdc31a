// A legacy-stream kernel between two non-blocking streams does not order them.
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <vector>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }
__global__ void reduce(const float* in, float* total, int n) { int i = threadIdx.x; if (i < n) atomicAdd(total, in[i]); }

int main() {
  float *a, *b, *c;
  cudaMalloc(&a, 4096); cudaMalloc(&b, 4096); cudaMalloc(&c, 4096);
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreate(&s2);
  produce<<<4, 256, 0, s1>>>(a, 1024);
  produce<<<4, 256>>>(c, 1024);            // the legacy stream "barrier"
  consume<<<4, 256, 0, s2>>>(a, b, 1024);  // expected-warning:3{{nonblocking-legacy-order}}
  cudaDeviceSynchronize();
  return 0;
}
