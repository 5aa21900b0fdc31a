// Work captured with cudaStreamBeginCaptureToGraph goes into the graph, as
// with cudaStreamBeginCapture: it runs when the graph is launched, not when
// it is captured, so a synchronous memset of what it uses before the launch
// is no race (fixed). Launched, the graph's kernel reads `a` while the
// legacy-stream memset after it may write it (racy).
#include <cuda_runtime.h>

__global__ void scale(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

void fixed(float* a, float* b, int n) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaGraph_t graph;
  cudaGraphCreate(&graph, 0);
  cudaStreamBeginCaptureToGraph(s, graph, nullptr, nullptr, 0, cudaStreamCaptureModeGlobal);
  scale<<<(n + 255) / 256, 256, 0, s>>>(a, b, n);
  cudaStreamEndCapture(s, nullptr);
  cudaMemset(a, 0, n * sizeof(float));
  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);
}

void racy(float* a, float* b, int n) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaGraph_t graph;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  scale<<<(n + 255) / 256, 256, 0, s>>>(a, b, n);
  cudaStreamEndCapture(s, &graph);
  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphLaunch(exec, s);
  cudaMemset(a, 0, n * sizeof(float));  // expected-warning:3{{nonblocking-legacy-order}}
  cudaStreamSynchronize(s);
}
