// cudaMemset on managed (or pinned) memory is fully synchronous ("except when
// the target is pinned host memory or a Unified Memory region", CUDA's API
// synchronization behavior): a non-blocking stream reading it afterwards is
// ordered (fixed). cudaMemsetAsync on the legacy stream is asynchronous, and
// the non-blocking stream is not ordered after it (racy).
#include <cuda_runtime.h>

__global__ void scale(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

void fixed(float* out, int n) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  float* managed;
  cudaMallocManaged(&managed, n * sizeof(float));
  cudaMemset(managed, 0, n * sizeof(float));
  scale<<<(n + 255) / 256, 256, 0, s>>>(managed, out, n);
  cudaDeviceSynchronize();
}

void racy(float* out, int n) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  float* managed;
  cudaMallocManaged(&managed, n * sizeof(float));
  cudaMemsetAsync(managed, 0, n * sizeof(float), 0);
  scale<<<(n + 255) / 256, 256, 0, s>>>(managed, out, n);  // expected-warning:3{{nonblocking-legacy-order}}
  cudaDeviceSynchronize();
}
