// Under capture, the side branch's output is consumed without joining it.
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
  cudaStream_t s0, s1;
  cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaEvent_t fork;
  cudaEventCreate(&fork);
  cudaGraph_t graph;
  cudaStreamBeginCapture(s0, cudaStreamCaptureModeGlobal);
  produce<<<4, 256, 0, s0>>>(a, 1024);
  cudaEventRecord(fork, s0);
  cudaStreamWaitEvent(s1, fork, 0);
  produce<<<4, 256, 0, s1>>>(b, 1024);
  consume<<<4, 256, 0, s0>>>(b, c, 1024);  // expected-warning:3{{cross-stream-race}}
  cudaStreamEndCapture(s0, &graph);
  return 0;
}
