// cudaStreamQuery returning cudaSuccess orders the host after the stream's
// work; one "not ready" answer orders nothing.
#include <unistd.h>

#include "common.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t s1, s2;
  float *a, *b;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CHECK(cudaMalloc(&a, kN * sizeof(float)));
  CHECK(cudaMalloc(&b, kN * sizeof(float)));
  spin_then_fill<<<64, 256, 0, s1>>>(a, 200000000, kN);  // ~0.1 s
  if (racy) {
    (void)cudaStreamQuery(s1);  // asks once and moves on
  } else {
    while (cudaStreamQuery(s1) == cudaErrorNotReady) usleep(2000);  // few polls: a small trace
  }
  scale<<<64, 256, 0, s2>>>(a, b, kN);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
