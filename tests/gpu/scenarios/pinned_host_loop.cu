// The host loops over a pinned buffer that an asynchronous device-to-host
// copy is still filling: no synchronization between the copy and the loop.
// Fixed: cudaStreamSynchronize on the copy's stream first.
#include "host_access.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float *device, *pinned;
  CHECK(cudaMalloc(&device, kN * sizeof(float)));
  CHECK(cudaMallocHost(&pinned, kN * sizeof(float)));
  spin_then_fill<<<64, 256, 0, s>>>(device, kBusyNs, kN);
  CHECK(cudaMemcpyAsync(pinned, device, kN * sizeof(float), cudaMemcpyDeviceToHost, s));
  if (!racy) CHECK(cudaStreamSynchronize(s));
  HostRead(pinned, kN);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(device));
  Done("pinned_host_loop", racy);
  return 0;
}
