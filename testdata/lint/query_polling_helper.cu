// A helper that tests the query (`bool ready(s) { return cudaStreamQuery(s)
// == cudaSuccess; }`): a loop `while (!ready(s))` ends only once the stream's
// work finished (fixed); acting while the helper says the stream is still
// busy orders nothing (racy).
#include <cuda_runtime.h>

static bool ready(cudaStream_t s) { return cudaStreamQuery(s) == cudaSuccess; }
static bool busy(cudaStream_t s) { return cudaStreamQuery(s) != cudaSuccess; }

float fixed_ready(const float* d, float* pinned, cudaStream_t s) {
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  while (!ready(s)) {
  }
  return pinned[0];
}

float fixed_busy(const float* d, float* pinned, cudaStream_t s) {
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  while (busy(s)) {
  }
  return pinned[0];
}

float racy_while_busy(const float* d, float* pinned, cudaStream_t s) {
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  if (busy(s)) return pinned[0];  // expected-warning:23{{host-device-race}}
  return 0.0f;
}
