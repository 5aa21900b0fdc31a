// known-false: 34:18 unsynchronized-timing
// A false warning the lint still gives (shape of tiny-cuda-nn's
// samples/mlp_learning_an_image.cu:282, own code). The synchronize runs under
// `i % std::min(interval, 100u) == 0` and the clock under `print = i % interval
// == 0`, with interval in {10, 100, 1000}: min(interval, 100) divides interval,
// so the first condition holds whenever the second does, and every clock read
// follows the synchronize.
// What streamcheck lint reports: unsynchronized-timing at `end` (kernel `fill`
// may still be running). Why it is wrong: the path that skips the synchronize
// and reads the clock cannot be taken; telling so needs arithmetic over the
// loop's values the lint does not do.
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>

__global__ void fill(float* p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = i; }

int main() {
  int n = 1 << 20;
  float* d;
  cudaMalloc(&d, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  auto begin = std::chrono::steady_clock::now();
  unsigned interval = 10;
  for (unsigned i = 0; i < 100000; ++i) {
    bool print = i % interval == 0;
    fill<<<n / 256, 256, 0, s>>>(d, n);
    if (i % std::min(interval, 100u) == 0) {
      cudaStreamSynchronize(s);
    }
    if (print) {
      auto end = std::chrono::steady_clock::now();  // the false warning
      printf("%lld us\n", (long long)std::chrono::duration_cast<std::chrono::microseconds>(end - begin).count());
      begin = std::chrono::steady_clock::now();
    }
    if (print && i > 0 && interval < 1000) interval *= 10;
  }
  cudaFree(d);
  return 0;
}
