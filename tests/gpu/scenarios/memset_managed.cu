// A synchronous cudaMemset of managed memory is fully synchronous with the
// host ("... except when the target is pinned host memory or a Unified
// Memory region, in which case they are fully synchronous"), so a
// non-blocking stream's later kernel is ordered after it. Racy: the Async
// version, which "is always asynchronous with respect to the host".
#include "common.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t s;
  float *managed, *out;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaMallocManaged(&managed, kN * sizeof(float)));
  CHECK(cudaMalloc(&out, kN * sizeof(float)));
  if (racy) CHECK(cudaMemsetAsync(managed, 0, kN * sizeof(float), 0));
  else CHECK(cudaMemset(managed, 0, kN * sizeof(float)));
  scale<<<64, 256, 0, s>>>(managed, out, kN);
  CHECK(cudaDeviceSynchronize());
  std::printf("managed[0] = %g\n", managed[0]);
  return 0;
}
