// The two-stream producer/consumer of event_record_wait.cu as functions, for
// the programs that test what happens after it (exit paths, crashes, fork, reset).
#pragma once

#include "common.cuh"

struct ProducerConsumer {
  cudaStream_t s1, s2;
  cudaEvent_t done;
  float *a, *b;
};

// Launches fill on one stream and a read of its output on another; with
// `racy` the reader does not wait. Returns at once: nothing waits for the GPU.
inline ProducerConsumer LaunchProducerConsumer(bool racy) {
  ProducerConsumer p;
  CHECK(cudaStreamCreateWithFlags(&p.s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&p.s2, cudaStreamNonBlocking));
  CHECK(cudaEventCreateWithFlags(&p.done, cudaEventDisableTiming));
  CHECK(cudaMalloc(&p.a, kN * sizeof(float)));
  CHECK(cudaMalloc(&p.b, kN * sizeof(float)));
  spin_then_fill<<<64, 256, 0, p.s1>>>(p.a, 1000000, kN);
  if (!racy) {
    CHECK(cudaEventRecord(p.done, p.s1));
    CHECK(cudaStreamWaitEvent(p.s2, p.done, 0));
  }
  scale<<<64, 256, 0, p.s2>>>(p.a, p.b, kN);
  return p;
}

// The same, then waits for it and releases everything: leaves the GPU idle.
inline void ProduceConsume(bool racy) {
  const ProducerConsumer p = LaunchProducerConsumer(racy);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(p.a));
  CHECK(cudaFree(p.b));
  CHECK(cudaEventDestroy(p.done));
  CHECK(cudaStreamDestroy(p.s1));
  CHECK(cudaStreamDestroy(p.s2));
}
