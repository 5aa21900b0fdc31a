// cudaMemcpy device-to-host returns after the copy: the host may reuse the
// buffer; an async copy into pinned memory needs a synchronize first. The
// device-to-device copy afterwards shows the synchronous copy's stream order.
#include "common.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t s;
  float *a, *b, *host;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaMalloc(&a, kN * sizeof(float)));
  CHECK(cudaMalloc(&b, kN * sizeof(float)));
  CHECK(cudaMallocHost(&host, kN * sizeof(float)));
  fill<<<64, 256, 0, s>>>(a, 1.0f, kN);
  if (!racy) CHECK(cudaStreamSynchronize(s));
  // Synchronous copy on the legacy default stream: not ordered after `s`.
  CHECK(cudaMemcpy(host, a, kN * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(b, host, kN * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaDeviceSynchronize());
  return 0;
}
