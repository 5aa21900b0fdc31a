// cudaFreeAsync is a stream operation: memory another stream still reads
// must not be freed until that use is ordered before the free.
#include "common.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t s1, s2;
  cudaEvent_t ready, consumed;
  float *a, *b;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CHECK(cudaEventCreate(&ready));
  CHECK(cudaEventCreate(&consumed));
  CHECK(cudaMalloc(&b, kN * sizeof(float)));
  CHECK(cudaMallocAsync(&a, kN * sizeof(float), s1));
  fill<<<64, 256, 0, s1>>>(a, 1.0f, kN);
  CHECK(cudaEventRecord(ready, s1));
  CHECK(cudaStreamWaitEvent(s2, ready, 0));
  scale<<<64, 256, 0, s2>>>(a, b, kN);
  if (!racy) {
    CHECK(cudaEventRecord(consumed, s2));
    CHECK(cudaStreamWaitEvent(s1, consumed, 0));
  }
  CHECK(cudaFreeAsync(a, s1));
  CHECK(cudaDeviceSynchronize());
  return 0;
}
