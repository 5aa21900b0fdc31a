// Host memory registered with cudaHostRegister is the source of an
// asynchronous copy to the device that has not run yet (its stream is busy);
// the host overwrites it. Fixed: the copy's stream is synchronized first.
#include <cstdlib>

#include "host_access.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float* device;
  CHECK(cudaMalloc(&device, kN * sizeof(float)));
  auto* host = static_cast<float*>(std::aligned_alloc(4096, kN * sizeof(float)));
  for (int i = 0; i < kN; ++i) host[i] = 1;
  CHECK(cudaHostRegister(host, kN * sizeof(float), cudaHostRegisterDefault));
  spin_then_fill<<<64, 256, 0, s>>>(device, kBusyNs, kN);
  CHECK(cudaMemcpyAsync(device, host, kN * sizeof(float), cudaMemcpyHostToDevice, s));
  if (!racy) CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < 1024; ++i) host[i] = 2;
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaHostUnregister(host));
  std::free(host);
  CHECK(cudaFree(device));
  Done("registered_overwrite", racy);
  return 0;
}
