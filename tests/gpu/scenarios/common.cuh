// Shared kernels and checks for the GPU scenario programs. Each program takes
// "racy" or "fixed" and exits non-zero only when a CUDA call fails.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t err_ = (call);                                                        \
    if (err_ != cudaSuccess) {                                                        \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(3);                                                                   \
    }                                                                                 \
  } while (0)

constexpr int kN = 1 << 20;

__global__ void fill(float* out, float value, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = value;
}

__global__ void scale(const float* in, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = 2 * in[i];
}

// Keeps a stream busy for about `ns` nanoseconds, so races are real in time too.
__global__ void spin_then_fill(float* out, long long ns, int n) {
  long long start = clock64();
  while (clock64() - start < ns) {
  }
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = 1;
}

// streamcheck lint reads one variant at a time (tests/lint/agreement_test.py
// passes -DSTREAMCHECK_SCENARIO_RACY=1 or 0): the variant is then a constant.
#ifdef STREAMCHECK_SCENARIO_RACY
#define Racy(argc, argv) (STREAMCHECK_SCENARIO_RACY != 0)
#else
inline bool Racy(int argc, char** argv) {
  if (argc < 2 || (std::strcmp(argv[1], "racy") != 0 && std::strcmp(argv[1], "fixed") != 0)) {
    std::fprintf(stderr, "usage: %s racy|fixed\n", argv[0]);
    std::exit(2);
  }
  return std::strcmp(argv[1], "racy") == 0;
}
#endif
