// lint-flags: -fopenmp
// An OpenMP host program (nvcc -Xcompiler -fopenmp): <omp.h> comes from the
// host compiler under nvcc, and from the lint's fallback where clang has none.
// The host loop reads the buffer a copy may still be writing; the fixed twin
// synchronizes first.
#include <cuda_runtime.h>
#include <omp.h>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }

float racy(float* d, float* h, int n) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  produce<<<4, 256, 0, s>>>(d, n);
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  float first = h[0];  // expected-warning:17{{host-device-race}}
  float total = 0;
#pragma omp parallel for reduction(+ : total) num_threads(omp_get_max_threads())
  for (int i = 1; i < n; ++i) total += h[i];
  cudaStreamSynchronize(s);
  return first + total;
}

float fixed(float* d, float* h, int n) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  produce<<<4, 256, 0, s>>>(d, n);
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  float total = h[0];
#pragma omp parallel for reduction(+ : total) num_threads(omp_get_max_threads())
  for (int i = 1; i < n; ++i) total += h[i];
  return total;
}
