// A std::vector as the host side of an asynchronous copy: pageable memory,
// so the copy is staged, and the host reading it before synchronizing is
// pageable-async-copy (correct only if the copy ran synchronously; one
// warning, not also a host-device-race); the synchronous cudaMemcpy returns
// after the copy and needs neither.
#include <cuda_runtime.h>
#include <numeric>
#include <vector>

float racy(const float* d, int n, cudaStream_t s) {
  std::vector<float> h(n);
  cudaMemcpyAsync(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost, s);  // expected-warning:3{{pageable-async-copy}}
  return std::accumulate(h.begin(), h.end(), 0.0f);
}

float fixed(const float* d, int n) {
  std::vector<float> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
  return std::accumulate(h.begin(), h.end(), 0.0f);
}
