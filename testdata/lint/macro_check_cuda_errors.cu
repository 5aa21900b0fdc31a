// helper_cuda.h style: every runtime call wrapped in checkCudaErrors(...), a
// macro over a template that reports the failing call. The wrapper changes
// nothing about ordering: the D2H copy is still asynchronous, and the
// wrapped cudaStreamSynchronize still orders the host after it.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

template <typename T>
void check(T result, char const* const func, const char* const file, int const line) {
  if (result) {
    fprintf(stderr, "CUDA error at %s:%d code=%d \"%s\"\n", file, line, static_cast<unsigned int>(result), func);
    exit(EXIT_FAILURE);
  }
}
#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }

float racy(float* d, float* h, int n) {
  cudaStream_t s;
  checkCudaErrors(cudaStreamCreate(&s));
  produce<<<(n + 255) / 256, 256, 0, s>>>(d, n);
  checkCudaErrors(cudaGetLastError());
  checkCudaErrors(cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  return h[0];  // expected-warning:10{{host-device-race}}
}

float fixed(float* d, float* h, int n) {
  cudaStream_t s;
  checkCudaErrors(cudaStreamCreate(&s));
  produce<<<(n + 255) / 256, 256, 0, s>>>(d, n);
  checkCudaErrors(cudaGetLastError());
  checkCudaErrors(cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  checkCudaErrors(cudaStreamSynchronize(s));
  return h[0];
}
