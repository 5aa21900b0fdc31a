// A header written for nvcc: it tests `#if __CUDACC__`, which nvcc defines
// as 1 and clang's CUDA wrapper leaves empty. Without the lint's prelude
// defining it as nvcc does, the #if is an error, #error fires, and the
// helpers below are never declared.
#pragma once
#include <cuda_runtime.h>

#if __CUDACC__
inline void wait_for(cudaStream_t s) { cudaStreamSynchronize(s); }
inline void launch_async_copy(float* host, const float* dev, size_t n, cudaStream_t s) {
  cudaMemcpyAsync(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost, s);
}
#else
#error "this header needs a CUDA compiler"
#endif
