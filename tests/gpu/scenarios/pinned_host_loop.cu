// The host loops over a pinned buffer that an asynchronous device-to-host
// copy is still filling: no synchronization between the copy and the loop.
// Fixed: cudaStreamSynchronize on the copy's stream first.
#include "host_access.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  PinnedCopyInFlight copy;
  if (!racy) CHECK(cudaStreamSynchronize(copy.stream));
  HostRead(copy.pinned, kN);
  copy.Free();
  Done("pinned_host_loop", racy);
  return 0;
}
