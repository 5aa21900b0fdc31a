// A blocking cudaMemcpy from pageable memory to the device returns once the
// data is staged: "the DMA to final destination may not have completed"
// (CUDA's API synchronization behavior). A non-blocking stream reading the
// destination right after is not ordered after the copy (racy, a possible
// race, as the dynamic half reports a staged copy); a blocking stream is, as
// the legacy stream's work precedes it, and so is any stream once the host
// synchronized the device (fixed). Timing such a copy with host clocks is not
// reported.
#include <chrono>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void consume(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

void racy(float* d_in, float* d_out, int n) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  float* h = static_cast<float*>(malloc(n * sizeof(float)));
  cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice);
  free(h);  // the source was staged: free to go
  consume<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_out, n);  // expected-warning:3{{nonblocking-legacy-order}}{{kernel `consume` on stream `s` (non-blocking) reads `d_in` while cudaMemcpy on the legacy default stream may still write it}}
  cudaStreamSynchronize(s);
}

void fixed(float* d_in, float* d_out, int n) {
  cudaStream_t blocking, nonblocking;
  cudaStreamCreate(&blocking);
  cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking);
  float* h = static_cast<float*>(malloc(n * sizeof(float)));
  const auto t0 = std::chrono::steady_clock::now();
  cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice);
  const auto t1 = std::chrono::steady_clock::now();
  consume<<<(n + 255) / 256, 256, 0, blocking>>>(d_in, d_out, n);
  cudaDeviceSynchronize();
  consume<<<(n + 255) / 256, 256, 0, nonblocking>>>(d_in, d_out, n);
  cudaStreamSynchronize(nonblocking);
  free(h);
  (void)(t1 - t0);
}
