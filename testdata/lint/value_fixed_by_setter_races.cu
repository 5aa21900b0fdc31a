// The racy twins of value_fixed_by_setter_clean: the field a setter stored may
// hold 1 when the branch is tested, because the setter was given a value not
// known, the paths joined with other values, or something wrote the field
// since (a store through a pointer in a helper, a call not followed, a
// standard function taking it by reference). The branch's race is reported.
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdlib>
#include <utility>

__global__ void apply(float* p, size_t n) {
  size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (k < n) p[k] -= 0.01f;
}
__global__ void gather(const float* src, float* dst, size_t n) {
  size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (k < n) dst[k] = src[k];
}

struct Config { int stage; int ranks; cudaStream_t comm; };
cudaStream_t compute;

void configure(Config* c, int stage) {
  c->stage = 0;
  if (stage == 1 && c->ranks > 1) c->stage = 1;
}
void raise_stage(int* stage) { *stage = 1; }
void load_config(Config* c);  // defined elsewhere: not followed
void allocate_elsewhere(void** p, size_t bytes);  // not followed: may store a new pointer

void setup(Config* cfg) {
  cfg->ranks = 2;
  cudaStreamCreate(&cfg->comm);
}

void stage_from_argument(float* p, float* full, size_t n, int requested) {
  Config cfg;
  setup(&cfg);
  configure(&cfg, requested);
  apply<<<1, 256, 0, compute>>>(p, n);
  if (cfg.stage == 1) gather<<<1, 256, 0, cfg.comm>>>(p, full, n);  // expected-warning:23{{cross-stream-race}}{{read-after-write}}
  cudaDeviceSynchronize();
}

void stage_on_one_path(float* p, float* full, size_t n, bool sharded) {
  Config cfg;
  setup(&cfg);
  if (sharded) {
    configure(&cfg, 1);
  } else {
    configure(&cfg, 0);
  }
  apply<<<1, 256, 0, compute>>>(p, n);
  if (cfg.stage == 1) gather<<<1, 256, 0, cfg.comm>>>(p, full, n);  // expected-warning:23{{cross-stream-race}}{{read-after-write}}
  cudaDeviceSynchronize();
}

void stage_raised_through_pointer(float* p, float* full, size_t n) {
  Config cfg;
  setup(&cfg);
  configure(&cfg, 0);
  raise_stage(&cfg.stage);
  apply<<<1, 256, 0, compute>>>(p, n);
  if (cfg.stage == 1) gather<<<1, 256, 0, cfg.comm>>>(p, full, n);  // expected-warning:23{{cross-stream-race}}{{read-after-write}}
  cudaDeviceSynchronize();
}

void stage_loaded_elsewhere(float* p, float* full, size_t n) {
  Config cfg;
  setup(&cfg);
  configure(&cfg, 0);
  load_config(&cfg);
  apply<<<1, 256, 0, compute>>>(p, n);
  if (cfg.stage == 1) gather<<<1, 256, 0, cfg.comm>>>(p, full, n);  // expected-warning:23{{cross-stream-race}}{{read-after-write}}
  cudaDeviceSynchronize();
}

void stage_swapped(float* p, float* full, size_t n) {
  Config cfg;
  setup(&cfg);
  configure(&cfg, 0);
  int sharded_stage = 1;
  std::swap(cfg.stage, sharded_stage);
  apply<<<1, 256, 0, compute>>>(p, n);
  if (cfg.stage == 1) gather<<<1, 256, 0, cfg.comm>>>(p, full, n);  // expected-warning:23{{cross-stream-race}}{{read-after-write}}
  cudaDeviceSynchronize();
}

// A pointer stored NULL, then handed by address (through a cast) to an
// allocator not followed: no longer known NULL, so the path past the NULL
// check that exits is taken, and its race reported.
void state_allocated_elsewhere(float* p, float* full, size_t n) {
  Config cfg;
  setup(&cfg);
  float* state = NULL;
  allocate_elsewhere((void**)&state, n * sizeof(float));
  if (state == NULL) exit(1);
  apply<<<1, 256, 0, compute>>>(state, n);
  gather<<<1, 256, 0, cfg.comm>>>(state, full, n);  // expected-warning:3{{cross-stream-race}}{{read-after-write}}
  cudaDeviceSynchronize();
}

int main(int argc, char** argv) {
  const size_t n = 1 << 20;
  float *params, *full;
  cudaMalloc(&params, n * sizeof(float));
  cudaMalloc(&full, n * sizeof(float));
  cudaStreamCreate(&compute);
  stage_from_argument(params, full, n, argc);
  stage_on_one_path(params, full, n, argc > 1);
  stage_raised_through_pointer(params, full, n);
  stage_loaded_elsewhere(params, full, n);
  stage_swapped(params, full, n);
  state_allocated_elsewhere(params, full, n);
  cudaDeviceSynchronize();
  cudaFree(params);
  cudaFree(full);
  return 0;
}
