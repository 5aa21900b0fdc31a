// cudaStreamSynchronize of the legacy default stream (0, cudaStreamLegacy)
// waits for earlier work of blocking streams, not of non-blocking ones: the
// host's later launch on another stream is ordered after the fill only when
// the fill's stream is blocking (fixed).
#include "common.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t producer, consumer;
  float *a, *b;
  CHECK(cudaStreamCreateWithFlags(&producer, racy ? cudaStreamNonBlocking : cudaStreamDefault));
  CHECK(cudaStreamCreateWithFlags(&consumer, cudaStreamNonBlocking));
  CHECK(cudaMalloc(&a, kN * sizeof(float)));
  CHECK(cudaMalloc(&b, kN * sizeof(float)));
  spin_then_fill<<<64, 256, 0, producer>>>(a, 1000000, kN);
  CHECK(cudaStreamSynchronize(racy ? 0 : cudaStreamLegacy));
  scale<<<64, 256, 0, consumer>>>(a, b, kN);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
