// A captured graph whose last node copies the result to pinned memory:
// cudaGraphLaunch returns at once, so the host must synchronize the launch
// stream before reading the result, each time it launches.
#include <cuda_runtime.h>

__global__ void step(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1; }

static void build(cudaGraphExec_t* exec, cudaStream_t s, float* d, float* h, int n) {
  cudaGraph_t graph;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  step<<<4, 256, 0, s>>>(d, n);
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(exec, graph, NULL, NULL, 0);
}

float racy(cudaStream_t s, float* d, float* h, int n) {
  cudaGraphExec_t exec;
  build(&exec, s, d, h, n);
  cudaGraphLaunch(exec, s);
  return h[0];  // expected-warning:10{{host-device-race}}
}

float fixed(cudaStream_t s, float* d, float* h, int n) {
  cudaGraphExec_t exec;
  build(&exec, s, d, h, n);
  cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);
  return h[0];
}
