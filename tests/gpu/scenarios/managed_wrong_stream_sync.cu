// A kernel on one stream writes managed memory; the program synchronizes
// another stream and reads the result on the host.
// Fixed: it synchronizes the kernel's stream.
#include "host_access.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t producer = NonBlockingStream(), other = NonBlockingStream();
  float* managed = ManagedWrittenOn(producer);
  fill<<<64, 256, 0, other>>>(managed + kN / 2, 3.0f, 16);
  CHECK(cudaStreamSynchronize(racy ? other : producer));
  HostRead(managed, 1024);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(managed));
  Done("managed_wrong_stream_sync", racy);
  return 0;
}
