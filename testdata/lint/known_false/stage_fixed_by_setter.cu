// known-false: 41:7 cross-stream-race
// A false warning the lint still gives (shape of llm.c test_gpt2.cu / profile_gpt2.cu calling train_gpt2.cu's
// gpt2_update after set_zero_configs(&multi_gpu_config, 0, ...)), own code.
// update() writes `params` on stream `compute` and, only when the sharding stage is 1,
// gathers them on stream `comm` with no event between the two (that branch is a real
// race wherever it runs). This program calls configure(&cfg, 0) first, and configure()
// stores 0 in cfg.stage unless its argument is 1, so the `cfg.stage == 1` branch can
// never run here.
//
// What streamcheck lint reports: cross-stream-races at the update(...) call
// (read-after-write: `gather` on `comm` reads `params` while `apply` on `compute` may
// still write it; and the write-after-read of the loop's next iteration).
// Why it is wrong: the branch that issues `gather` is infeasible in this program:
// cfg.stage is 0 on every path (configure(&cfg, 0) stores 0; nothing else writes it).
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
