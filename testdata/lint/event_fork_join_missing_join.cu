// Fork without the join: the combine on the main stream reads the side branch's output.
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
  cudaStream_t main_s, side;
  cudaStreamCreate(&main_s);
  cudaStreamCreate(&side);
  cudaEvent_t fork;
  cudaEventCreate(&fork);
  produce<<<4, 256, 0, main_s>>>(a, 1024);
  cudaEventRecord(fork, main_s);
  cudaStreamWaitEvent(side, fork, 0);
  consume<<<4, 256, 0, side>>>(a, b, 1024);
  consume<<<4, 256, 0, main_s>>>(b, c, 1024);  // expected-warning:3{{cross-stream-race}}
  cudaStreamSynchronize(main_s);
  return 0;
}
