// Double-buffered staging through two pinned buffers and two streams: the
// host refills a staging buffer for the next batch while the copy of that
// buffer's previous batch may still be reading it, unless it first waits for
// that buffer's stream.
#include <cuda_runtime.h>

__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }

void racy(float* staging0, float* staging1, float* d0, float* d1, float* out, int n) {
  cudaStream_t s0, s1;
  cudaStreamCreate(&s0);
  cudaStreamCreate(&s1);
  cudaMemcpyAsync(d0, staging0, n * sizeof(float), cudaMemcpyHostToDevice, s0);
  consume<<<4, 256, 0, s0>>>(d0, out, n);
  cudaMemcpyAsync(d1, staging1, n * sizeof(float), cudaMemcpyHostToDevice, s1);
  consume<<<4, 256, 0, s1>>>(d1, out + n, n);
  staging0[0] = 1.0f;  // expected-warning:3{{host-device-race}}
  cudaDeviceSynchronize();
}

void fixed(float* staging0, float* staging1, float* d0, float* d1, float* out, int n) {
  cudaStream_t s0, s1;
  cudaStreamCreate(&s0);
  cudaStreamCreate(&s1);
  cudaMemcpyAsync(d0, staging0, n * sizeof(float), cudaMemcpyHostToDevice, s0);
  consume<<<4, 256, 0, s0>>>(d0, out, n);
  cudaMemcpyAsync(d1, staging1, n * sizeof(float), cudaMemcpyHostToDevice, s1);
  consume<<<4, 256, 0, s1>>>(d1, out + n, n);
  cudaStreamSynchronize(s0);
  staging0[0] = 1.0f;
  cudaDeviceSynchronize();
}
