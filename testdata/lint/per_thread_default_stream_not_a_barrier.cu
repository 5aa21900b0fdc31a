// lint-flags: -fgpu-default-stream=per-thread
// Built with --default-stream per-thread (nvcc; clang: -fgpu-default-stream=per-thread),
// handle 0 is the thread's own blocking stream: it is ordered with the legacy
// stream only, not with other blocking streams. The kernel on stream 0 races
// with the one on `s`, where the legacy default stream would have waited.
#include <cuda_runtime.h>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }

void racy(float* a, float* b) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  produce<<<4, 256, 0, s>>>(a, 1024);
  consume<<<4, 256>>>(a, b, 1024);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
}

void fixed(float* a, float* b) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  produce<<<4, 256, 0, s>>>(a, 1024);
  consume<<<4, 256, 0, cudaStreamLegacy>>>(a, b, 1024);  // the legacy stream still waits for `s`
  consume<<<4, 256>>>(a, b, 1024);                        // and stream 0 for the legacy stream
  cudaDeviceSynchronize();
}
