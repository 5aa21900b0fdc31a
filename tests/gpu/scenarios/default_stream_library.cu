// nvcc-flags: -ldl
// run-flags: --forbid-default-stream=*libdefault_stream_library*
// nvcc-library: default_stream_library
// Rule default-stream-use: a library whose API takes a stream forgets it on
// one path. Built twice (run_gpu_tests.sh's nvcc-library line): with
// SCENARIO_LIBRARY, libdefault_stream_library.so; without, the program that
// calls it, each call inside a scope (include/streamcheck/scope.h) as a test
// would be. Under --forbid-default-stream='*libdefault_stream_library*' only
// the library's work counts: the program's own init<<<>>> on the default
// stream is not reported.
//   racy:  mylib_scale(x, 100, s) launches scale_small<<<1, n>>>: the legacy default stream
//   fixed: mylib_scale_fixed passes the stream on that path too
#include "common.cuh"

#include "../../../include/streamcheck/scope.h"

#ifdef SCENARIO_LIBRARY

__global__ void scale_big(float* x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] *= 2;
}

__global__ void scale_small(float* x, int n) {
  if (threadIdx.x < n) x[threadIdx.x] *= 2;
}

extern "C" void mylib_scale(float* x, int n, cudaStream_t stream) {
  if (n < 1024) {
    scale_small<<<1, n>>>(x, n);  // forgets `stream`: the legacy default stream
  } else {
    scale_big<<<(n + 255) / 256, 256, 0, stream>>>(x, n);
  }
}

extern "C" void mylib_scale_fixed(float* x, int n, cudaStream_t stream) {
  if (n < 1024) {
    scale_small<<<1, n, 0, stream>>>(x, n);
  } else {
    scale_big<<<(n + 255) / 256, 256, 0, stream>>>(x, n);
  }
}

#else

extern "C" void mylib_scale(float* x, int n, cudaStream_t stream);
extern "C" void mylib_scale_fixed(float* x, int n, cudaStream_t stream);

__global__ void init(float* x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] = 1;
}

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  void (*scale)(float*, int, cudaStream_t) = racy ? mylib_scale : mylib_scale_fixed;
  constexpr int n = 4096;
  float* x;
  cudaStream_t s;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaStreamCreate(&s));  // blocking: ordered with the legacy stream, so no race, only the discipline
  init<<<n / 256, 256>>>(x, n);  // the program's own default-stream launch: not the library's
  streamcheck_scope_begin("test_large_batch");
  scale(x, n, s);
  streamcheck_scope_end();
  streamcheck_scope_begin("test_small_batch");
  scale(x, 100, s);
  streamcheck_scope_end();
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaDeviceSynchronize());
  float first = 0, last = 0;
  CHECK(cudaMemcpy(&first, x, sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&last, x + n - 1, sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("x[0]=%g x[n-1]=%g\n", first, last);
  return 0;
}

#endif
