// A helper that copies into two pageable buffers the caller reads before
// synchronizing is reported once per buffer at its call site (the two
// findings share the place, not the buffer); the fixed twin synchronizes
// before reading.
#include <cuda_runtime.h>
#include <cstdlib>

struct HostArrays {
  float* in;
  float* out;
};

static void prepare_pageable(HostArrays* a, size_t bytes) {
  a->in = (float*)malloc(bytes);
  a->out = (float*)malloc(bytes);
}
static void round_trip(HostArrays* a, float* d, size_t bytes, cudaStream_t s) {
  cudaMemcpyAsync(a->in, d, bytes, cudaMemcpyDeviceToHost, s);
  cudaMemcpyAsync(a->out, d, bytes, cudaMemcpyDeviceToHost, s);
}

float racy(float* d, cudaStream_t s) {
  HostArrays a;
  prepare_pageable(&a, 4096);
  round_trip(&a, d, 4096, s);  // expected-warning:3{{pageable-async-copy}}{{`a.in`}} expected-warning:3{{pageable-async-copy}}{{`a.out`}}
  const float sum = a.in[0] + a.out[0];
  cudaStreamSynchronize(s);
  return sum;
}

float fixed(float* d, cudaStream_t s) {
  HostArrays a;
  prepare_pageable(&a, 4096);
  round_trip(&a, d, 4096, s);
  cudaStreamSynchronize(s);
  return a.in[0] + a.out[0];
}
