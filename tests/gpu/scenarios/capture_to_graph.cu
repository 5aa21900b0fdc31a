// Stream capture into a graph that exists (cudaStreamBeginCaptureToGraph), as
// cuda-samples' graphConditionalNodes builds a conditional node's body: a
// graph's kernel node writes `a`, and a kernel captured into the same graph
// reads it. Fixed: the capture goes after that node; racy: after none, so
// the two nodes of one launch may run at once. Both variants also capture a
// kernel into a while-loop node's body graph (made by the driver, not
// modeled) and end that capture with no pGraph, as the sample does.
#include "common.cuh"

__global__ void run_once(char* count, cudaGraphConditionalHandle handle) {
  cudaGraphSetConditional(handle, --*count > 0);
}

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float *a, *b;
  char* count;
  CHECK(cudaMalloc(&a, kN * sizeof(float)));
  CHECK(cudaMalloc(&b, kN * sizeof(float)));
  CHECK(cudaMalloc(&count, 1));
  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t writer;
  int n = kN;
  long long busy = 1000000;
  void* writer_args[] = {&a, &busy, &n};
  cudaKernelNodeParams p = {};
  p.func = reinterpret_cast<void*>(spin_then_fill);
  p.gridDim = dim3(64);
  p.blockDim = dim3(256);
  p.kernelParams = writer_args;
  CHECK(cudaGraphAddKernelNode(&writer, graph, nullptr, 0, &p));
  CHECK(cudaStreamBeginCaptureToGraph(s, graph, racy ? nullptr : &writer, nullptr, racy ? 0 : 1,
                                      cudaStreamCaptureModeGlobal));
  scale<<<64, 256, 0, s>>>(a, b, kN);
  CHECK(cudaStreamEndCapture(s, nullptr));

  // A while node whose body is captured: the body graph comes from the driver.
  cudaGraph_t loop;
  CHECK(cudaGraphCreate(&loop, 0));
  cudaGraphConditionalHandle handle;
  CHECK(cudaGraphConditionalHandleCreate(&handle, loop, 1, cudaGraphCondAssignDefault));
  cudaGraphNodeParams cp = {cudaGraphNodeTypeConditional};
  cp.conditional.handle = handle;
  cp.conditional.type = cudaGraphCondTypeWhile;
  cp.conditional.size = 1;
  cudaGraphNode_t conditional;
  CHECK(cudaGraphAddNode(&conditional, loop, nullptr, nullptr, 0, &cp));
  CHECK(cudaStreamBeginCaptureToGraph(s, cp.conditional.phGraph_out[0], nullptr, nullptr, 0,
                                      cudaStreamCaptureModeGlobal));
  run_once<<<1, 1, 0, s>>>(count, handle);
  CHECK(cudaStreamEndCapture(s, nullptr));

  cudaGraphExec_t exec, loop_exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphInstantiate(&loop_exec, loop, 0));
  CHECK(cudaMemset(count, 3, 1));
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaGraphLaunch(loop_exec, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaGraphExecDestroy(loop_exec));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(loop));
  CHECK(cudaGraphDestroy(graph));
  std::printf("capture_to_graph %s done\n", racy ? "racy" : "fixed");
  return 0;
}
