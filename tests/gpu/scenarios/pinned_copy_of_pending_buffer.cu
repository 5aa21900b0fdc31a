// A synchronous cudaMemcpy reads a pinned buffer that an asynchronous copy on
// a non-blocking stream is still filling (the legacy stream's copy does not
// wait for it). The buffer's pages are guarded; the driver may read them on
// the calling thread inside cudaMemcpy, which must neither fault into the
// tracer nor hang. Fixed: the filling stream is synchronized first.
#include "host_access.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float *device, *copy, *pinned;
  CHECK(cudaMalloc(&device, kN * sizeof(float)));
  CHECK(cudaMalloc(&copy, kN * sizeof(float)));
  CHECK(cudaMallocHost(&pinned, kN * sizeof(float)));
  spin_then_fill<<<64, 256, 0, s>>>(device, kBusyNs, kN);
  CHECK(cudaMemcpyAsync(pinned, device, kN * sizeof(float), cudaMemcpyDeviceToHost, s));
  if (!racy) CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(copy, pinned, 256, cudaMemcpyHostToDevice));  // small: the driver may stage it by CPU
  CHECK(cudaMemcpy(copy, pinned, kN * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFreeHost(pinned));
  Done("pinned_copy_of_pending_buffer", racy);
  return 0;
}
