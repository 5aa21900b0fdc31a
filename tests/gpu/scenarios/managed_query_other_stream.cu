// The program busy-waits until cudaStreamQuery says a stream is done, but it
// asks about another stream than the one whose kernel writes the managed
// memory it then reads. Fixed: it polls the kernel's stream.
#include <unistd.h>

#include "host_access.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t producer = NonBlockingStream(), other = NonBlockingStream();
  float* managed = ManagedWrittenOn(producer);
  while (cudaStreamQuery(racy ? other : producer) == cudaErrorNotReady) usleep(2000);
  HostRead(managed, 1024);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(managed));
  Done("managed_query_other_stream", racy);
  return 0;
}
