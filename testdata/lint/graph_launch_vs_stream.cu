// A launched graph writes a buffer that another stream reads without ordering.
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
  cudaMalloc(&a, 4096); cudaMalloc(&b, 4096);
  cudaStream_t s0, s1;
  cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(s0, cudaStreamCaptureModeGlobal);
  produce<<<4, 256, 0, s0>>>(a, 1024);
  cudaStreamEndCapture(s0, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphLaunch(exec, s0);
  consume<<<4, 256, 0, s1>>>(a, b, 1024);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
  return 0;
}
