// The racy twins of constructor_via_make_shared_clean: the constructor the
// lint follows launches on the stream it is given and does not wait, so the
// previous round's work, and its own, may still run when the clock starts a
// region that ends after a synchronize of another stream only.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <memory>

__global__ void fill(float* p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = i; }

class Model {
 public:
  Model(int n, cudaStream_t s) : n_(n) {
    cudaMalloc(&w_, n * sizeof(float));
    fill<<<n_ / 256, 256, 0, s>>>(w_, n_);
  }
  ~Model() { cudaFree(w_); }

 private:
  int n_;
  float* w_ = nullptr;
};

void rounds(float* d, int n, cudaStream_t s, cudaStream_t other) {
  auto begin = std::chrono::steady_clock::now();
  auto model = std::make_shared<Model>(n, s);
  cudaStreamSynchronize(other);
  auto end = std::chrono::steady_clock::now();  // expected-warning:14{{unsynchronized-timing}}{{kernel `fill` on stream `s`}}
  printf("%lld\n", (long long)std::chrono::duration_cast<std::chrono::microseconds>(end - begin).count());
}

void rounds_new(float* d, int n, cudaStream_t s, cudaStream_t other) {
  auto begin = std::chrono::steady_clock::now();
  Model* model = new Model(n, s);
  cudaStreamSynchronize(other);
  auto end = std::chrono::steady_clock::now();  // expected-warning:14{{unsynchronized-timing}}{{kernel `fill` on stream `s`}}
  printf("%lld\n", (long long)std::chrono::duration_cast<std::chrono::microseconds>(end - begin).count());
  cudaStreamSynchronize(s);
  delete model;
}

int main() {
  int n = 1 << 20;
  float* d;
  cudaMalloc(&d, n * sizeof(float));
  cudaStream_t s, other;
  cudaStreamCreate(&s);
  cudaStreamCreate(&other);
  rounds(d, n, s, other);
  cudaStreamSynchronize(s);
  rounds_new(d, n, s, other);
  cudaDeviceSynchronize();
  cudaFree(d);
  return 0;
}
