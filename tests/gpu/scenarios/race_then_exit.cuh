// The two-stream producer/consumer of event_record_wait.cu as a function, for
// the programs that test what happens after it (exit paths, fork, reset).
#pragma once

#include "common.cuh"

// Runs fill on one stream and a read of its output on another; with `racy`
// the reader does not wait. Leaves the GPU idle.
inline void ProduceConsume(bool racy) {
  cudaStream_t s1, s2;
  cudaEvent_t done;
  float *a, *b;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  CHECK(cudaMalloc(&a, kN * sizeof(float)));
  CHECK(cudaMalloc(&b, kN * sizeof(float)));
  spin_then_fill<<<64, 256, 0, s1>>>(a, 1000000, kN);
  if (!racy) {
    CHECK(cudaEventRecord(done, s1));
    CHECK(cudaStreamWaitEvent(s2, done, 0));
  }
  scale<<<64, 256, 0, s2>>>(a, b, kN);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaEventDestroy(done));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
}
