// A synchronous cudaMemcpy reads a pinned buffer that an asynchronous copy on
// a non-blocking stream is still filling (the legacy stream's copy does not
// wait for it). The buffer's pages are guarded; the driver may read them on
// the calling thread inside cudaMemcpy, which must neither fault into the
// tracer nor hang. Fixed: the filling stream is synchronized first.
#include "host_access.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  float* again;
  CHECK(cudaMalloc(&again, kN * sizeof(float)));
  PinnedCopyInFlight copy;
  if (!racy) CHECK(cudaStreamSynchronize(copy.stream));
  CHECK(cudaMemcpy(again, copy.pinned, 256, cudaMemcpyHostToDevice));  // small: the driver may stage it by CPU
  CHECK(cudaMemcpy(again, copy.pinned, kN * sizeof(float), cudaMemcpyHostToDevice));
  copy.Free();
  CHECK(cudaFree(again));
  Done("pinned_copy_of_pending_buffer", racy);
  return 0;
}
