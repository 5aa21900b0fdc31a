// Memory a graph allocates and frees with memory nodes (cudaMallocAsync and
// cudaFreeAsync captured into it, or cudaGraphAddMemAllocNode/MemFreeNode) is
// allocated anew, at the same address, by every launch: using it in the
// graph is fine launch after launch, and so is using an allocation the graph
// leaves live after the launch, even once freed outside and launched again.
// What the graph frees is gone after the launch.
#include <cuda_runtime.h>
#include <cstring>

__global__ void square(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = in[i] * in[i]; }
__global__ void check(const float* in, int n) { (void)in; (void)n; }

// Captured: the allocation and the free are nodes of the graph.
void capture(cudaGraphExec_t* exec, cudaStream_t s, const float* host_in, float* host_out, int n) {
  float *in, *out;
  cudaGraph_t graph;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaMallocAsync(&in, n * sizeof(float), s);
  cudaMallocAsync(&out, n * sizeof(float), s);
  cudaMemcpyAsync(in, host_in, n * sizeof(float), cudaMemcpyHostToDevice, s);
  square<<<1, 256, 0, s>>>(in, out, n);
  cudaFreeAsync(in, s);
  cudaMemcpyAsync(host_out, out, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaFreeAsync(out, s);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(exec, graph, NULL, NULL, 0);
}

// Built by API; the allocation comes back through `*kept` (and is not freed
// in the graph) when the caller asks for it.
void build(cudaGraphExec_t* exec, const float* host_in, int n, float** kept = NULL) {
  cudaGraph_t graph;
  cudaGraphNode_t alloc_in, alloc_out, copy, free_in;
  cudaMemAllocNodeParams params;
  memset(&params, 0, sizeof(params));
  params.bytesize = n * sizeof(float);
  cudaGraphCreate(&graph, 0);
  cudaGraphAddMemAllocNode(&alloc_in, graph, NULL, 0, &params);
  float* in = (float*)params.dptr;
  cudaGraphAddMemAllocNode(&alloc_out, graph, &alloc_in, 1, &params);
  float* out = (float*)params.dptr;
  cudaGraphAddMemcpyNode1D(&copy, graph, &alloc_out, 1, in, host_in, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaGraphAddMemFreeNode(&free_in, graph, &copy, 1, in);
  if (kept == NULL) {
    cudaGraphNode_t free_out;
    cudaGraphAddMemFreeNode(&free_out, graph, &free_in, 1, out);
  } else {
    *kept = out;
  }
  cudaGraphInstantiate(exec, graph, NULL, NULL, 0);
}

void fixed(cudaStream_t s, const float* host_in, float* host_out, int n) {
  cudaGraphExec_t captured, built;
  capture(&captured, s, host_in, host_out, n);
  cudaGraphLaunch(captured, s);
  cudaGraphLaunch(captured, s);
  cudaStreamSynchronize(s);
  float* kept = NULL;
  build(&built, host_in, n, &kept);
  cudaGraphLaunch(built, s);
  check<<<1, 256, 0, s>>>(kept, n);
  cudaStreamSynchronize(s);
  cudaFree(kept);
  cudaGraphLaunch(built, s);  // allocates `kept` again
  check<<<1, 256, 0, s>>>(kept, n);
  cudaFreeAsync(kept, s);
  cudaStreamSynchronize(s);
}

void racy(cudaStream_t s, const float* host_in, int n) {
  cudaGraphExec_t built;
  float* kept = NULL;
  build(&built, host_in, n, &kept);
  cudaGraphLaunch(built, s);
  cudaFreeAsync(kept, s);
  check<<<1, 256, 0, s>>>(kept, n);  // expected-warning:3{{use-after-free}}
  cudaStreamSynchronize(s);
}
