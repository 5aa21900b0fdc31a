// A std::vector (or a local array) that goes out of scope while a copy into
// it may still be running: its memory is freed under the copy. Reported as
// pageable-async-copy at the copy, with a note where the scope ends.
#include <cuda_runtime.h>
#include <vector>

void racy_vector(const float* d, int n, cudaStream_t s) {
  std::vector<float> h(n);
  cudaMemcpyAsync(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost, s);  // expected-warning:3{{pageable-async-copy}}
}

void racy_array(const float* d, cudaStream_t s) {
  for (int i = 0; i < 4; ++i) {
    float chunk[64];
    cudaMemcpyAsync(chunk, d + i * 64, sizeof chunk, cudaMemcpyDeviceToHost, s);  // expected-warning:5{{pageable-async-copy}}
  }
  cudaStreamSynchronize(s);
}

void fixed_vector(const float* d, int n, cudaStream_t s) {
  std::vector<float> h(n);
  cudaMemcpyAsync(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
}

void fixed_array(const float* d, cudaStream_t s) {
  for (int i = 0; i < 4; ++i) {
    float chunk[64];
    cudaMemcpyAsync(chunk, d + i * 64, sizeof chunk, cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
  }
}
