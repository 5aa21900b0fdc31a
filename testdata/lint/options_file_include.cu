// Found only through the include path CMake writes into an nvcc options file
// (--options-file CMakeFiles/<target>.dir/includes_CUDA.rsp): lint.nvcc_options_file
// lints it through such a compile database. The race is the header's
// launcher against a copy on another stream; linted alone, with the same
// -I given by hand (lint-flags), it is the same finding.
// lint-flags: -Iinclude
#include <device_buffer.cuh>

void racy(float* d, float* pinned, int n) {
  cudaStream_t compute, copy;
  cudaStreamCreate(&compute);
  cudaStreamCreate(&copy);
  launch_fill(d, n, compute);
  download(pinned, d, n, copy);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
}
