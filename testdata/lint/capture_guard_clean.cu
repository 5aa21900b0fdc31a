// A helper begins stream capture and returns an RAII guard whose destructor
// (a std::function the lint does not follow) ends the capture and launches
// the graph (the shape of tiny-cuda-nn's CudaGraph::capture_guard, own code).
// The capture ends when the guard dies, at the end of `step`: the lint takes
// a capture a helper left open in an object with a destructor of its own as
// ended when that object's scope ends (FlowState::capture_guards). Every
// clock read follows cudaDeviceSynchronize(). No warning.
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
  cudaGraphExec_t exec = nullptr;
  OnExit record(cudaStream_t s) {
    cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
    return OnExit{[this, s]() {
      cudaStreamEndCapture(s, &graph);
      if (!exec) cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0);
      cudaGraphLaunch(exec, s);
    }};
  }
};

static void step(Recorder& rec, cudaStream_t s, float* d, int n) {
  auto guard = rec.record(s);
  fill<<<n / 256, 256, 0, s>>>(d, n);
}  // guard: end capture, launch

int main() {
  int n = 1 << 20;
  float* d;
  cudaMalloc(&d, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  Recorder rec;
  auto begin = std::chrono::steady_clock::now();
  for (int i = 0; i < 100; ++i) {
    fill<<<n / 256, 256, 0, s>>>(d, n);
    step(rec, s, d, n);
    if (i % 10 == 0) {
      cudaDeviceSynchronize();
      auto end = std::chrono::steady_clock::now();
      printf("%lld us\n", (long long)std::chrono::duration_cast<std::chrono::microseconds>(end - begin).count());
      begin = end;
    }
  }
  cudaFree(d);
  return 0;
}
