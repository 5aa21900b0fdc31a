// The producer's stream was created non-blocking, so the legacy default
// stream does not wait for it: cudaStreamSynchronize(0) returns without its
// kernel, and the host reads the managed memory the kernel writes.
// Fixed: cudaStreamSynchronize on the producer's stream.
#include "host_access.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t producer = NonBlockingStream();
  float* managed = ManagedWrittenOn(producer);
  CHECK(cudaStreamSynchronize(racy ? 0 : producer));
  HostRead(managed, 1024);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(managed));
  Done("managed_sync_legacy_nonblocking", racy);
  return 0;
}
