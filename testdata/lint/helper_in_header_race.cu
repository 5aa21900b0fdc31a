// Helpers defined in a header of the project are followed at their calls,
// as those of the main file are: the kernel the header's launcher queues on
// `compute` races with the copy its download queues on `copy` (racy), and
// an event orders them (fixed). The host reading what the download writes
// before synchronizing is a host-device-race.
#include "include/device_buffer.cuh"

void racy(float* d, float* pinned, int n) {
  cudaStream_t compute, copy;
  cudaStreamCreate(&compute);
  cudaStreamCreate(&copy);
  launch_fill(d, n, compute);
  download(pinned, d, n, copy);  // expected-warning:3{{cross-stream-race}}{{cudaMemcpyAsync on stream `copy` reads `d` while kernel `header_fill` on stream `compute` may still write it}}
  cudaStreamSynchronize(compute);
  const float first = pinned[0];  // expected-warning:23{{host-device-race}}
  cudaStreamSynchronize(copy);
  (void)first;
}

void fixed(float* d, float* pinned, int n) {
  cudaStream_t compute, copy;
  cudaEvent_t filled;
  cudaStreamCreate(&compute);
  cudaStreamCreate(&copy);
  cudaEventCreate(&filled);
  launch_fill(d, n, compute);
  cudaEventRecord(filled, compute);
  cudaStreamWaitEvent(copy, filled, 0);
  download(pinned, d, n, copy);
  cudaStreamSynchronize(copy);
  const float first = pinned[0];
  (void)first;
}
