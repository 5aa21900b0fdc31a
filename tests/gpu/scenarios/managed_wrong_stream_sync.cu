// A kernel on one stream writes managed memory; the program synchronizes
// another stream and reads the result on the host.
// Fixed: it synchronizes the kernel's stream.
#include "host_access.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t producer = NonBlockingStream(), other = NonBlockingStream();
  float* managed;
  CHECK(cudaMallocManaged(&managed, kN * sizeof(float)));
  // The other stream's work, on the allocation's second half, first: launched
  // after the producer's, its pointer would be no bound of the producer's
  // kernel when that was launched, whose argument then counts as the whole
  // allocation (tracer/kernel_access/access_extent.h) and meets this one.
  fill<<<64, 256, 0, other>>>(managed + kN / 2, 3.0f, 16);
  spin_then_fill<<<64, 256, 0, producer>>>(managed, kBusyNs, 1024);
  CHECK(cudaStreamSynchronize(racy ? other : producer));
  HostRead(managed, 1024);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(managed));
  Done("managed_wrong_stream_sync", racy);
  return 0;
}
