// A timed region ended and restarted under the same unchanged test, with
// other work between the two tests (the shape of tiny-cuda-nn's image sample:
// `if (print_loss) { end = now(); ... }`, a visualization, then `if
// (print_loss) begin = now();`), own code. The work issued before the test is
// waited for before `end`; the restart at `begin` comes after `end` on every
// path that reaches it, so the work is not "issued since the previous clock
// read" there, though paths that skipped both reads joined in between. No
// warning. (A chain of `std::cout <<` writes the stream each `<<` returns,
// no variable of the program.)
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <iostream>

__global__ void fill(float* p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = i; }

void train(float* d, float* out, int n, cudaStream_t s, int steps, bool visualize) {
  auto begin = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) {
    bool print = i % 10 == 0;
    fill<<<n / 256, 256, 0, s>>>(d, n);
    if (print) {
      cudaStreamSynchronize(s);
      auto end = std::chrono::steady_clock::now();
      std::cout << "step " << i << ": "
                << std::chrono::duration_cast<std::chrono::microseconds>(end - begin).count() << " us" << std::endl;
    }
    if (visualize) {
      cudaMemcpy(out, d, n * sizeof(float), cudaMemcpyDeviceToHost);  // returns when done
    }
    if (print) {
      begin = std::chrono::steady_clock::now();
    }
  }
  cudaDeviceSynchronize();
}

int main(int argc, char**) {
  int n = 1 << 20;
  float *d, *out;
  cudaMalloc(&d, n * sizeof(float));
  cudaMallocHost(&out, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  train(d, out, n, s, 1000, argc > 1);
  cudaFree(d);
  cudaFreeHost(out);
  return 0;
}
