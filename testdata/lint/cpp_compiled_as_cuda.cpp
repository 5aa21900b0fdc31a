// A .cpp file its build compiles as CUDA (CMake's LANGUAGE CUDA, nvcc -x cu):
// it launches kernels and uses threadIdx, so the lint parses it as CUDA
// without being told -x cuda. The kernel on `s2` reads what the kernel on
// `s1` writes (racy); a synchronize orders them (fixed).
#include <cuda_runtime.h>

__global__ void produce(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}
__global__ void consume(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

void racy(float* a, float* b, int n) {
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  produce<<<(n + 255) / 256, 256, 0, s1>>>(a, n);
  consume<<<(n + 255) / 256, 256, 0, s2>>>(a, b, n);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
}

void fixed(float* a, float* b, int n) {
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  produce<<<(n + 255) / 256, 256, 0, s1>>>(a, n);
  cudaStreamSynchronize(s1);
  consume<<<(n + 255) / 256, 256, 0, s2>>>(a, b, n);
  cudaDeviceSynchronize();
}
