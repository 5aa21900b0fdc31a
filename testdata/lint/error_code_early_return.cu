// Calls checked by comparing their result and returning early: the copy's
// error check does not wait for it; the check of cudaStreamSynchronize does.
#include <cuda_runtime.h>

int racy(const float* d, float* h, int n, cudaStream_t s, float* out) {
  if (cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s) != cudaSuccess) return -1;
  *out = h[0];  // expected-warning:10{{host-device-race}}
  return 0;
}

int fixed(const float* d, float* h, int n, cudaStream_t s, float* out) {
  if (cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s) != cudaSuccess) return -1;
  cudaError_t err = cudaStreamSynchronize(s);
  if (err != cudaSuccess) return -2;
  *out = h[0];
  return 0;
}
