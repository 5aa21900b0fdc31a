// A header the build has and this machine lacks is a fatal error, and clang
// reports no error after one: a function that needs the header (`uses_config`)
// is left out and named, the others are analysed (the race in `clean_code` is
// reported), and the exit status says the analysis is incomplete (3;
// expected-incomplete). lint.fatal_error_is_named checks the message.
#include <cuda_runtime.h>

#include "streamcheck_no_such_header.h"

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }

void uses_config(float* a, float* b, cudaStream_t s) {
  configure_from_header(a);
  produce<<<4, 256, 0, s>>>(a, 1024);
}

void clean_code(float* a, float* b) {
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  produce<<<4, 256, 0, s1>>>(a, 1024);
  consume<<<4, 256, 0, s2>>>(a, b, 1024);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
}
