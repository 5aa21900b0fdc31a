// A helper that copies into two pageable buffers is reported once per buffer at
// its call site (the two findings share the place, not the buffer); the
// fixed twin allocates them pinned.
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
static void prepare_pinned(HostArrays* a, size_t bytes) {
  cudaMallocHost((void**)&a->in, bytes);
  cudaMallocHost((void**)&a->out, bytes);
}
static void round_trip(HostArrays* a, float* d, size_t bytes, cudaStream_t s) {
  cudaMemcpyAsync(a->in, d, bytes, cudaMemcpyDeviceToHost, s);
  cudaMemcpyAsync(a->out, d, bytes, cudaMemcpyDeviceToHost, s);
}

void racy(float* d, cudaStream_t s) {
  HostArrays a;
  prepare_pageable(&a, 4096);
  round_trip(&a, d, 4096, s);  // expected-warning:3{{pageable-async-copy}} expected-warning:3{{pageable-async-copy}}
  cudaStreamSynchronize(s);
}

void fixed(float* d, cudaStream_t s) {
  HostArrays a;
  prepare_pinned(&a, 4096);
  round_trip(&a, d, 4096, s);
  cudaStreamSynchronize(s);
}
