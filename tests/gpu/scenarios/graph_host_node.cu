// A graph built by the API (cudaGraphAddKernelNode, cudaGraphAddHostNode):
// the host node reads the pinned buffer the kernel node writes. Racy: the
// host node has no dependency on the kernel node, so CUDA may run it first
// (CUDA programming guide, "CUDA Graphs" and "Host Functions"). Fixed: it
// depends on the kernel node. Launched twice, each launch runs it once.
#include "common.cuh"

static void CUDART_CB ReadFirst(void* p) {
  volatile float v = static_cast<float*>(p)[0];
  (void)v;
}

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t s;
  float* pinned;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaMallocHost(&pinned, kN * sizeof(float)));
  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  long long spins = 1000000;
  int n = kN;
  void* args[] = {&pinned, &spins, &n};
  cudaKernelNodeParams k = {};
  k.func = reinterpret_cast<void*>(spin_then_fill);
  k.gridDim = dim3(64);
  k.blockDim = dim3(256);
  k.kernelParams = args;
  cudaGraphNode_t fill, read;
  CHECK(cudaGraphAddKernelNode(&fill, graph, nullptr, 0, &k));
  cudaHostNodeParams h = {};
  h.fn = ReadFirst;
  h.userData = pinned;
  CHECK(cudaGraphAddHostNode(&read, graph, racy ? nullptr : &fill, racy ? 0 : 1, &h));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  return 0;
}
