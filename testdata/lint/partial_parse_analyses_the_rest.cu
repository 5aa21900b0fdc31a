// One function does not compile here (a helper from a header this build
// lacks); the lint says so, leaves that function out, and still analyses the
// others: the race in `racy` is reported, and the exit status is 3, the
// analysis is incomplete (expected-incomplete); partial_parse_allowed.cu is
// the same with --allow-partial (exit 1).
#include <cuda_runtime.h>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }

void broken(float* a, float* b) {
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  produce<<<4, 256, 0, s1>>>(a, 1024);
  helper_from_missing_header(a);
  consume<<<4, 256, 0, s2>>>(a, b, 1024);
}

void racy(float* a, float* b) {
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  produce<<<4, 256, 0, s1>>>(a, 1024);
  consume<<<4, 256, 0, s2>>>(a, b, 1024);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
}

void fixed(float* a, float* b) {
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  produce<<<4, 256, 0, s1>>>(a, 1024);
  cudaStreamSynchronize(s1);
  consume<<<4, 256, 0, s2>>>(a, b, 1024);
  cudaDeviceSynchronize();
}
