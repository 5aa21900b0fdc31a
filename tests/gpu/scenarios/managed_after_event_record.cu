// A kernel writes managed memory; the program records an event after it and
// reads the result on the host without waiting for the event.
// Fixed: cudaEventSynchronize on the event first.
#include "host_access.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t producer = NonBlockingStream();
  cudaEvent_t done;
  CHECK(cudaEventCreate(&done));
  float* managed = ManagedWrittenOn(producer);
  CHECK(cudaEventRecord(done, producer));
  if (!racy) CHECK(cudaEventSynchronize(done));
  HostRead(managed, 1024);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(managed));
  Done("managed_after_event_record", racy);
  return 0;
}
