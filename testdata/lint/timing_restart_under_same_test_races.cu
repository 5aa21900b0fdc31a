// The racy twins of timing_restart_under_same_test_clean: the region is
// restarted under another test than the one that ended it, so on the paths
// that skipped `end` the work issued since the previous restart may still
// run at `begin`; and a region ended with nothing synchronized.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>

__global__ void fill(float* p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = i; }

void restart_under_other_test(float* d, int n, cudaStream_t s, int steps, bool restart) {
  auto begin = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) {
    bool print = i % 10 == 0;
    fill<<<n / 256, 256, 0, s>>>(d, n);
    if (print) {
      cudaStreamSynchronize(s);
      auto end = std::chrono::steady_clock::now();
      printf("%lld us\n", (long long)std::chrono::duration_cast<std::chrono::microseconds>(end - begin).count());
    }
    if (restart) {
      begin = std::chrono::steady_clock::now();  // expected-warning:15{{unsynchronized-timing}}{{kernel `fill`}}
    }
  }
  cudaDeviceSynchronize();
}

void end_unsynchronized(float* d, int n, cudaStream_t s, int steps) {
  auto begin = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) {
    bool print = i % 10 == 0;
    fill<<<n / 256, 256, 0, s>>>(d, n);
    if (print) {
      auto end = std::chrono::steady_clock::now();  // expected-warning:18{{unsynchronized-timing}}{{kernel `fill`}}
      printf("%lld us\n", (long long)std::chrono::duration_cast<std::chrono::microseconds>(end - begin).count());
    }
    if (print) {
      begin = std::chrono::steady_clock::now();
    }
  }
  cudaDeviceSynchronize();
}

int main(int argc, char**) {
  int n = 1 << 20;
  float* d;
  cudaMalloc(&d, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  restart_under_other_test(d, n, s, 1000, argc > 1);
  end_unsynchronized(d, n, s, 1000);
  cudaFree(d);
  return 0;
}
