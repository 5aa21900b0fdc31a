// cudaMemset is asynchronous to the host and runs on the legacy default
// stream: a non-blocking stream is not ordered after it.
#include "common.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t s;
  float *a, *b;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaMalloc(&a, kN * sizeof(float)));
  CHECK(cudaMalloc(&b, kN * sizeof(float)));
  CHECK(cudaMemset(a, 0, kN * sizeof(float)));
  if (!racy) CHECK(cudaStreamSynchronize(0));
  scale<<<64, 256, 0, s>>>(a, b, kN);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
