// A host clock read inside a helper, with the timed work issued in the same
// helper, is the helper's own finding: reported once, inside it, not again at
// each call (multi-gpu-programming-models' single_gpu, called from main).
// The helper that synchronizes before its stop read is silent (fixed).
#include <chrono>
#include <cuda_runtime.h>

__global__ void sweep(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= 0.5f;
}

double timed_racy(float* d, int n, int iters, cudaStream_t s) {
  auto t0 = std::chrono::steady_clock::now();
  for (int it = 0; it < iters; ++it) {
    cudaMemsetAsync(d, 0, sizeof(float), s);
    sweep<<<(n + 255) / 256, 256, 0, s>>>(d, n);
  }
  auto t1 = std::chrono::steady_clock::now();  // expected-warning:13{{unsynchronized-timing}}
  return std::chrono::duration<double>(t1 - t0).count();
}

double timed_fixed(float* d, int n, int iters, cudaStream_t s) {
  auto t0 = std::chrono::steady_clock::now();
  for (int it = 0; it < iters; ++it) sweep<<<(n + 255) / 256, 256, 0, s>>>(d, n);
  cudaStreamSynchronize(s);
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
}

double run_both(float* d, int n, cudaStream_t s) {
  double total = timed_racy(d, n, 10, s);
  total += timed_racy(d, n, 20, s);
  total += timed_fixed(d, n, 10, s);
  return total;
}
