// cudaEventElapsedTime after the host has seen all the work the stop event
// captured finish, by a polling loop that counts the stream's success
// (fixed): the event has completed. Polling a stream the stop event was not
// recorded on says nothing of it (racy).
#include <cuda_runtime.h>

__global__ void work(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

float fixed(float* d, cudaStream_t s, cudaEvent_t start, cudaEvent_t stop) {
  cudaEventRecord(start, s);
  work<<<4, 256, 0, s>>>(d, 1024);
  cudaEventRecord(stop, s);
  int remaining = 1;
  while (remaining) {
    if (cudaStreamQuery(s) == cudaSuccess) remaining--;
  }
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  return ms;
}

float racy(float* d, cudaStream_t s, cudaStream_t other, cudaEvent_t start, cudaEvent_t stop) {
  cudaEventRecord(start, s);
  work<<<4, 256, 0, s>>>(d, 1024);
  cudaEventRecord(stop, s);
  int remaining = 1;
  while (remaining) {
    if (cudaStreamQuery(other) == cudaSuccess) remaining--;
  }
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);  // expected-warning:3{{unsynchronized-timing}}
  return ms;
}
