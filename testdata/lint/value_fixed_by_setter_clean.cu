// A branch behind a configuration field a setter fixed (the shape of llm.c's
// test_gpt2.cu / profile_gpt2.cu calling gpt2_update after
// set_zero_configs(&multi_gpu_config, 0, ...)), own code. update() writes
// `params` on stream `compute` and, only when the sharding stage is 1,
// gathers them on stream `comm` with no event between the two (a real race
// wherever that branch runs). This program calls configure(&cfg, 0) first,
// which stores 0 in cfg.stage unless its argument is 1, and nothing writes
// cfg.stage after it: the `c->stage == 1` branch cannot run. The lint knows
// the value the setter stored (known_values.h) and warns of nothing.
#include <cuda_runtime.h>
#include <cstddef>

__global__ void apply(float* p, size_t n) {
  size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (k < n) p[k] -= 0.01f;
}
__global__ void gather(const float* src, float* dst, size_t n) {
  size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (k < n) dst[k] = src[k];
}

struct Config { int stage; int ranks; cudaStream_t comm; };
Config cfg;
cudaStream_t compute;

void configure(Config* c, int stage) {
  c->stage = 0;
  if (stage == 1 && c->ranks > 1) c->stage = 1;
}

void update(float* params, float* full, size_t n, Config* c) {
  for (int i = 0; i < 4; i++) {
    float* p = params + i * n;
    apply<<<(unsigned)((n + 255) / 256), 256, 0, compute>>>(p, n);
    if (c->stage == 1) {
      gather<<<(unsigned)((n + 255) / 256), 256, 0, c->comm>>>(p, full + i * n, n);
    }
  }
  cudaDeviceSynchronize();
}

int main() {
  const size_t n = 1 << 20;
  float *params, *full;
  cudaMalloc(&params, 4 * n * sizeof(float));
  cudaMalloc(&full, 4 * n * sizeof(float));
  cudaMemset(params, 0, 4 * n * sizeof(float));
  cudaStreamCreate(&compute);
  cudaStreamCreate(&cfg.comm);
  cfg.ranks = 1;
  configure(&cfg, 0);
  for (int step = 0; step < 3; step++) update(params, full, n, &cfg);
  cudaFree(params);
  cudaFree(full);
  return 0;
}
