// A kernel on one stream writes managed memory; the program synchronizes
// another stream and reads the result on the host.
// Fixed: it synchronizes the kernel's stream.
#include "host_access.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t producer, other;
  CHECK(cudaStreamCreateWithFlags(&producer, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  float* managed;
  CHECK(cudaMallocManaged(&managed, kN * sizeof(float)));
  fill<<<64, 256, 0, other>>>(managed + kN / 2, 3.0f, 16);
  spin_then_fill<<<64, 256, 0, producer>>>(managed, kBusyNs, 1024);
  CHECK(cudaStreamSynchronize(racy ? other : producer));
  HostRead(managed, 1024);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(managed));
  Done("managed_wrong_stream_sync", racy);
  return 0;
}
