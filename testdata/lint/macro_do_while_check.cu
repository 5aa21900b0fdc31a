// The do { ... } while (0) error-check macro most projects define (CUDA_CHECK):
// a memset on one stream and a kernel on another race unless an event,
// recorded and waited through the same macro, orders them.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                              \
  do {                                                                                \
    cudaError_t err_ = (call);                                                        \
    if (err_ != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

__global__ void accumulate(float* acc, const float* in, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) acc[i] += in[i]; }

void racy(float* acc, const float* in, int n) {
  cudaStream_t init, work;
  CUDA_CHECK(cudaStreamCreateWithFlags(&init, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&work, cudaStreamNonBlocking));
  CUDA_CHECK(cudaMemsetAsync(acc, 0, n * sizeof(float), init));
  accumulate<<<(n + 255) / 256, 256, 0, work>>>(acc, in, n);  // expected-warning:3{{cross-stream-race}}
  CUDA_CHECK(cudaDeviceSynchronize());
}

void fixed(float* acc, const float* in, int n) {
  cudaStream_t init, work;
  cudaEvent_t zeroed;
  CUDA_CHECK(cudaStreamCreateWithFlags(&init, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&work, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreateWithFlags(&zeroed, cudaEventDisableTiming));
  CUDA_CHECK(cudaMemsetAsync(acc, 0, n * sizeof(float), init));
  CUDA_CHECK(cudaEventRecord(zeroed, init));
  CUDA_CHECK(cudaStreamWaitEvent(work, zeroed, 0));
  accumulate<<<(n + 255) / 256, 256, 0, work>>>(acc, in, n);
  CUDA_CHECK(cudaDeviceSynchronize());
}
