// The legacy default stream orders blocking streams, not non-blocking ones.
#include "common.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t side;
  float *a, *b;
  CHECK(cudaStreamCreateWithFlags(&side, racy ? cudaStreamNonBlocking : cudaStreamDefault));
  CHECK(cudaMalloc(&a, kN * sizeof(float)));
  CHECK(cudaMalloc(&b, kN * sizeof(float)));
  spin_then_fill<<<64, 256>>>(a, 1000000, kN);  // legacy default stream
  scale<<<64, 256, 0, side>>>(a, b, kN);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
