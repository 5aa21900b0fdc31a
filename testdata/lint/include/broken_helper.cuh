// A helper whose code does not compile here (it calls something this build
// does not declare): helper_does_not_compile.cu calls it.
#pragma once
#include <cuda_runtime.h>

inline void wait_and_log(cudaStream_t s) {
  cudaStreamSynchronize(s);
  log_from_a_missing_header("synchronized");
}
