// A helper that copies into a std::vector and returns it
// (`auto v = copyToVector(t, stream)`): the caller's vector is the helper's,
// so using it before synchronizing the stream is reported at the call (racy),
// and not when the caller or the helper synchronizes first (fixed).
#include <cuda_runtime.h>
#include <vector>

static std::vector<float> copyToVector(const float* d, int n, cudaStream_t s) {
  std::vector<float> v(n);
  cudaMemcpyAsync(v.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  return v;
}

static std::vector<float> copyToVectorSynchronized(const float* d, int n, cudaStream_t s) {
  std::vector<float> v(n);
  cudaMemcpyAsync(v.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  return v;
}

static float* copyToMalloc(const float* d, int n, cudaStream_t s);

float racy(const float* d, int n, cudaStream_t s) {
  auto v = copyToVector(d, n, s);  // expected-warning:12{{pageable-async-copy}}{{the host uses `v`}}
  return v[0];
}

float racy_pointer(const float* d, int n, cudaStream_t s) {
  float* h = copyToMalloc(d, n, s);  // expected-warning:14{{pageable-async-copy}}
  return h[0];
}

float fixed_caller_synchronizes(const float* d, int n, cudaStream_t s) {
  std::vector<float> v = copyToVector(d, n, s);
  cudaStreamSynchronize(s);
  return v[0];
}

float fixed_helper_synchronizes(const float* d, int n, cudaStream_t s) {
  auto v = copyToVectorSynchronized(d, n, s);
  return v[0];
}

#include <cstdlib>
static float* copyToMalloc(const float* d, int n, cudaStream_t s) {
  float* h = static_cast<float*>(malloc(n * sizeof(float)));
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  return h;
}
