// A wait on an event that was never recorded orders nothing.
#include "common.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t s1, s2;
  cudaEvent_t done;
  float *a, *b;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CHECK(cudaEventCreate(&done));
  CHECK(cudaMalloc(&a, kN * sizeof(float)));
  CHECK(cudaMalloc(&b, kN * sizeof(float)));
  if (racy) CHECK(cudaStreamWaitEvent(s2, done, 0));  // too early: nothing recorded yet
  spin_then_fill<<<64, 256, 0, s1>>>(a, 1000000, kN);
  CHECK(cudaEventRecord(done, s1));
  if (!racy) CHECK(cudaStreamWaitEvent(s2, done, 0));
  scale<<<64, 256, 0, s2>>>(a, b, kN);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
