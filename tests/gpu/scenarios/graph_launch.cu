// Captured work runs when the graph is launched, in the launch stream's
// order; another stream must wait for the launch.
#include "common.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t s1, s2;
  cudaEvent_t done;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  float *a, *b;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CHECK(cudaEventCreate(&done));
  CHECK(cudaMalloc(&a, kN * sizeof(float)));
  CHECK(cudaMalloc(&b, kN * sizeof(float)));
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  spin_then_fill<<<64, 256, 0, s1>>>(a, 1000000, kN);
  CHECK(cudaStreamEndCapture(s1, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  // Reading `a` here is fine in both variants: the capture did not run.
  scale<<<64, 256, 0, s2>>>(a, b, kN);
  CHECK(cudaStreamSynchronize(s2));
  CHECK(cudaGraphLaunch(exec, s1));
  if (!racy) {
    CHECK(cudaEventRecord(done, s1));
    CHECK(cudaStreamWaitEvent(s2, done, 0));
  }
  scale<<<64, 256, 0, s2>>>(a, b, kN);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
