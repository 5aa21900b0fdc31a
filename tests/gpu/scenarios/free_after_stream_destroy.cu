// Work queued on a stream still runs after cudaStreamDestroy, and cudaFree's
// device-wide synchronization waits for it too. Fixed: a cudaFree after the
// destroy orders the host, hence its later launch on another stream, after
// that work; freeing the buffer itself is then no free while in use. Racy:
// no cudaFree in between.
#include "common.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t doomed, other;
  float *a, *b, *scratch;
  CHECK(cudaStreamCreateWithFlags(&doomed, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  CHECK(cudaMalloc(&a, kN * sizeof(float)));
  CHECK(cudaMalloc(&b, kN * sizeof(float)));
  CHECK(cudaMalloc(&scratch, 256));
  spin_then_fill<<<64, 256, 0, doomed>>>(a, 1000000, kN);
  CHECK(cudaStreamDestroy(doomed));
  if (!racy) CHECK(cudaFree(scratch));
  scale<<<64, 256, 0, other>>>(a, b, kN);
  CHECK(cudaStreamSynchronize(other));
  CHECK(cudaFree(a));
  return 0;
}
