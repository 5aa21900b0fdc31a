// A helper that uploads its input, reads the clock, runs and times a kernel,
// called several times in a row (a GEMM benchmark timing each shape): from
// the second call on, the clock's start is read while the upload may still
// run, so the upload is timed too. Its own finding, reported once inside it
// however often it is called; the helper that waits for the upload first is
// silent.
#include <cstdio>
#include <ctime>
#include <cuda_runtime.h>

__global__ void scale(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= 2.0f;
}

float* upload(const float* h, int n, cudaStream_t s) {
  float* d = nullptr;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s);
  return d;
}

void time_shape(const float* h, int n, cudaStream_t s) {
  float* d = upload(h, n, s);
  clock_t start = clock();  // expected-warning:19{{unsynchronized-timing}}
  for (int i = 0; i < 10; ++i) scale<<<(n + 255) / 256, 256, 0, s>>>(d, n);
  cudaStreamSynchronize(s);
  clock_t end = clock();
  std::printf("%d: %f s\n", n, double(end - start) / CLOCKS_PER_SEC);
  cudaFree(d);
}

void time_shape_waiting(const float* h, int n, cudaStream_t s) {
  float* d = upload(h, n, s);
  cudaStreamSynchronize(s);
  clock_t start = clock();
  for (int i = 0; i < 10; ++i) scale<<<(n + 255) / 256, 256, 0, s>>>(d, n);
  cudaStreamSynchronize(s);
  clock_t end = clock();
  std::printf("%d: %f s\n", n, double(end - start) / CLOCKS_PER_SEC);
  cudaFree(d);
}

void time_all(const float* h, cudaStream_t s) {
  time_shape(h, 1 << 10, s);
  time_shape(h, 1 << 12, s);
  time_shape(h, 1 << 14, s);
  time_shape(h, 1 << 16, s);
  time_shape_waiting(h, 1 << 10, s);
  time_shape_waiting(h, 1 << 12, s);
}
