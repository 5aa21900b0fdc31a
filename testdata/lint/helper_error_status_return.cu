// A helper's early return of an error status (a nonzero cudaError_t, `false`)
// is the caller's to check and leave: the state after the call is that of the
// helper's successful returns, which synchronize (fixed). A helper whose
// early return says success (cudaSuccess, `true`) without synchronizing
// leaves the copy pending (racy), and so does a void one.
#include <cuda_runtime.h>

cudaError_t finish(cudaStream_t s, const float* check) {
  if (check == nullptr) return cudaErrorInvalidValue;
  return cudaStreamSynchronize(s);
}

bool finish_bool(cudaStream_t s, const float* check) {
  if (check == nullptr) return false;
  cudaStreamSynchronize(s);
  return true;
}

cudaError_t finish_or_skip(cudaStream_t s, bool skip) {
  if (skip) return cudaSuccess;
  return cudaStreamSynchronize(s);
}

bool finish_bool_or_skip(cudaStream_t s, bool skip) {
  if (skip) return true;
  cudaStreamSynchronize(s);
  return true;
}

float fixed_error_code(const float* d, float* pinned, cudaStream_t s) {
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  if (finish(s, d) != cudaSuccess) return -1.0f;
  return pinned[0];
}

float fixed_bool(const float* d, float* pinned, cudaStream_t s) {
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  if (!finish_bool(s, d)) return -1.0f;
  return pinned[0];
}

float racy_success_skips(const float* d, float* pinned, cudaStream_t s, bool skip) {
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  if (finish_or_skip(s, skip) != cudaSuccess) return -1.0f;
  return pinned[0];  // expected-warning:10{{host-device-race}}
}

float racy_true_skips(const float* d, float* pinned, cudaStream_t s, bool skip) {
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  if (!finish_bool_or_skip(s, skip)) return -1.0f;
  return pinned[0];  // expected-warning:10{{host-device-race}}
}
