// A plain C++ file of a CUDA project (no kernels, no launches): parsed as
// C++ with the toolkit's headers on its path, as the build compiles it. The
// host reads the pinned buffer a copy writes before synchronizing (racy),
// or after (fixed).
#include <cuda_runtime.h>

float racy(const float* d, float* pinned, cudaStream_t s) {
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  return pinned[0];  // expected-warning:10{{host-device-race}}
}

float fixed(const float* d, float* pinned, cudaStream_t s) {
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  return pinned[0];
}
