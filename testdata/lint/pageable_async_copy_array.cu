// cudaMemcpyAsync into a local array (pageable): racy when the host writes it
// before the stream is synchronized, fixed when the synchronize comes first.
#include <cuda_runtime.h>

int racy(const float* d, cudaStream_t s) {
  float h[256];
  cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, s);  // expected-warning:3{{pageable-async-copy}}
  h[0] = 0.0f;
  cudaStreamSynchronize(s);
  return h[1] > 0;
}

int fixed(const float* d, cudaStream_t s) {
  float h[256];
  cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  h[0] = 0.0f;
  return h[1] > 0;
}
