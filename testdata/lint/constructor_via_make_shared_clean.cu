// Objects built with std::make_shared, std::make_unique and new run their
// constructor, which the lint follows as it follows `Model m(n);` (the shape
// of tiny-cuda-nn's benchmarks, whose Trainer synchronizes the device in its
// constructor, own code). Each constructor here ends with a synchronize, so the
// work of the previous round is done when the clock starts. No warning.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <memory>

__global__ void fill(float* p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = i; }

class Model {
 public:
  explicit Model(int n) : n_(n) {
    cudaMalloc(&w_, n * sizeof(float));
    fill<<<n_ / 256, 256>>>(w_, n_);
    cudaDeviceSynchronize();
  }
  Model(int n, float scale) : n_(n), scale_(scale) {
    cudaMalloc(&w_, n * sizeof(float));
    cudaMemset(w_, 0, n * sizeof(float));
    cudaDeviceSynchronize();
  }
  ~Model() { cudaFree(w_); }

 private:
  int n_;
  float scale_ = 1.0f;
  float* w_ = nullptr;
};

// A constructor with default arguments, given a pointer to a derived class
// where it takes one to the base (tiny-cuda-nn's Trainer).
struct Network { virtual ~Network() = default; };
struct Mlp : Network {};
class Trainer {
 public:
  Trainer(std::shared_ptr<Network> net, unsigned seed = 1337, float sigma = 0) : net_(std::move(net)) {
    cudaDeviceSynchronize();
  }

 private:
  std::shared_ptr<Network> net_;
};

void rounds_trainer(float* d, int n, cudaStream_t s) {
  for (int round = 0; round < 3; ++round) {
    auto net = std::make_shared<Mlp>();
    auto trainer = std::make_shared<Trainer>(net);
    auto begin = std::chrono::steady_clock::now();
    cudaStreamSynchronize(s);
    auto end = std::chrono::steady_clock::now();
    printf("%lld\n", (long long)std::chrono::duration_cast<std::chrono::microseconds>(end - begin).count());
    fill<<<n / 256, 256, 0, s>>>(d, n);
  }
}

void rounds(float* d, int n, cudaStream_t s) {
  for (int round = 0; round < 3; ++round) {
    auto model = std::make_shared<Model>(n);
    auto begin = std::chrono::steady_clock::now();
    for (int i = 0; i < 8; ++i) fill<<<n / 256, 256, 0, s>>>(d, n);  // left queued for the next round
    cudaStreamSynchronize(s);
    auto end = std::chrono::steady_clock::now();
    printf("%lld\n", (long long)std::chrono::duration_cast<std::chrono::microseconds>(end - begin).count());
    for (int i = 0; i < 4; ++i) fill<<<n / 256, 256, 0, s>>>(d, n);
  }
}

void rounds_unique(float* d, int n, cudaStream_t s) {
  for (int round = 0; round < 3; ++round) {
    auto model = std::make_unique<Model>(n, 0.5f);
    auto begin = std::chrono::steady_clock::now();
    cudaStreamSynchronize(s);
    auto end = std::chrono::steady_clock::now();
    printf("%lld\n", (long long)std::chrono::duration_cast<std::chrono::microseconds>(end - begin).count());
    fill<<<n / 256, 256, 0, s>>>(d, n);
  }
}

void rounds_new(float* d, int n, cudaStream_t s) {
  for (int round = 0; round < 3; ++round) {
    Model* model = new Model(n);
    auto begin = std::chrono::steady_clock::now();
    cudaStreamSynchronize(s);
    auto end = std::chrono::steady_clock::now();
    printf("%lld\n", (long long)std::chrono::duration_cast<std::chrono::microseconds>(end - begin).count());
    fill<<<n / 256, 256, 0, s>>>(d, n);
    delete model;
  }
}

int main() {
  int n = 1 << 20;
  float* d;
  cudaMalloc(&d, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  rounds(d, n, s);
  rounds_unique(d, n, s);
  rounds_new(d, n, s);
  rounds_trainer(d, n, s);
  cudaDeviceSynchronize();
  cudaFree(d);
  return 0;
}
