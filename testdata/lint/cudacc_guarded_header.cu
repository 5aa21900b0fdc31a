// A header guarded by `#if __CUDACC__` (include/cudacc_guarded.cuh) parses as
// under nvcc, so the functions that use its helpers are analysed: the host
// reads the pinned buffer before waiting (racy) or after (fixed). Under
// clang's own `#define __CUDACC__` (empty) both would be left out.
#include "include/cudacc_guarded.cuh"

float racy(const float* d, float* pinned, size_t n, cudaStream_t s) {
  launch_async_copy(pinned, d, n, s);
  const float first = pinned[0];  // expected-warning:23{{host-device-race}}
  wait_for(s);
  return first;
}

float fixed(const float* d, float* pinned, size_t n, cudaStream_t s) {
  launch_async_copy(pinned, d, n, s);
  wait_for(s);
  return pinned[0];
}
