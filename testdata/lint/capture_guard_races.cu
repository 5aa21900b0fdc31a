// The racy twins of capture_guard_clean: work issued on the stream after the
// RAII guard that ended the capture died runs at once (it is not captured), so
// a clock read with nothing synchronized times it; work issued while the guard
// lives is captured, runs in a graph the lint does not see, and is not timed.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <functional>
#include <utility>

__global__ void fill(float* p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = i; }

class OnExit {
 public:
  OnExit() = default;
  OnExit(std::function<void()>&& f) : f_{std::move(f)} {}
  OnExit(OnExit&& o) { std::swap(f_, o.f_); }
  ~OnExit() { if (f_) f_(); }

 private:
  std::function<void()> f_;
};

struct Recorder {
  cudaGraph_t graph = nullptr;
  OnExit record(cudaStream_t s) {
    cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
    return OnExit{[this, s]() { cudaStreamEndCapture(s, &graph); }};
  }
};

void after_the_guard(Recorder& rec, cudaStream_t s, float* d, int n) {
  auto begin = std::chrono::steady_clock::now();
  {
    auto guard = rec.record(s);
    fill<<<n / 256, 256, 0, s>>>(d, n);  // captured
  }
  fill<<<n / 256, 256, 0, s>>>(d, n);  // runs now
  auto end = std::chrono::steady_clock::now();  // expected-warning:14{{unsynchronized-timing}}{{kernel `fill` on stream `s`}}
  printf("%lld us\n", (long long)std::chrono::duration_cast<std::chrono::microseconds>(end - begin).count());
}

int main() {
  int n = 1 << 20;
  float* d;
  cudaMalloc(&d, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  Recorder rec;
  after_the_guard(rec, s, d, n);
  cudaDeviceSynchronize();
  cudaFree(d);
  return 0;
}
