// A SAFE_FREE_ASYNC macro that frees on a given stream and clears the
// pointer: freeing on another stream than the one still using the buffer is a
// free while in use, unless that stream first waits for the use.
#include <cuda_runtime.h>

#define SAFE_FREE_ASYNC(p, s) do { if (p) { cudaFreeAsync((p), (s)); (p) = nullptr; } } while (0)

__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }

void racy(float* out, int n) {
  cudaStream_t compute, cleanup;
  cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&cleanup, cudaStreamNonBlocking);
  float* tmp = nullptr;
  cudaMallocAsync(&tmp, n * sizeof(float), compute);
  consume<<<(n + 255) / 256, 256, 0, compute>>>(tmp, out, n);
  SAFE_FREE_ASYNC(tmp, cleanup);  // expected-warning:3{{free-while-in-use}}
  cudaDeviceSynchronize();
}

void fixed(float* out, int n) {
  cudaStream_t compute, cleanup;
  cudaEvent_t used;
  cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&cleanup, cudaStreamNonBlocking);
  cudaEventCreate(&used);
  float* tmp = nullptr;
  cudaMallocAsync(&tmp, n * sizeof(float), compute);
  consume<<<(n + 255) / 256, 256, 0, compute>>>(tmp, out, n);
  cudaEventRecord(used, compute);
  cudaStreamWaitEvent(cleanup, used, 0);
  SAFE_FREE_ASYNC(tmp, cleanup);
  cudaDeviceSynchronize();
}
