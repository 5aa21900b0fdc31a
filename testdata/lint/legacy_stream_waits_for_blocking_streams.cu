// The legacy default stream waits for earlier work of every blocking stream
// (cudaStreamCreate), an array of them made in a loop included: work queued
// on streams[i] and then a kernel on stream 0 are ordered, and an event
// recorded on stream 0 covers all of it (the HyperQ pattern). Non-blocking
// streams get no such order: there the same code races.
#include <cuda_runtime.h>
#include <cstdlib>

__global__ void fill(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void sum(float* data, int n) { for (int i = 1; i < n; ++i) data[0] += data[i]; }

float fixed(float* d, float* h, int nstreams) {
  cudaStream_t* streams = (cudaStream_t*)malloc(nstreams * sizeof(cudaStream_t));
  for (int i = 0; i < nstreams; i++) cudaStreamCreate(&(streams[i]));
  cudaEvent_t done;
  cudaEventCreate(&done);
  for (int i = 0; i < nstreams; ++i) fill<<<1, 32, 0, streams[i]>>>(&d[32 * i], 32);
  sum<<<1, 1>>>(d, 32 * nstreams);
  cudaMemcpyAsync(h, d, sizeof(float), cudaMemcpyDeviceToHost, streams[0]);
  cudaEventRecord(done, 0);
  cudaEventSynchronize(done);
  return h[0];
}

float racy(float* d, float* h, int nstreams) {
  cudaStream_t* streams = (cudaStream_t*)malloc(nstreams * sizeof(cudaStream_t));
  for (int i = 0; i < nstreams; i++) cudaStreamCreateWithFlags(&(streams[i]), cudaStreamNonBlocking);
  cudaEvent_t done;
  cudaEventCreate(&done);
  for (int i = 0; i < nstreams; ++i) fill<<<1, 32, 0, streams[i]>>>(&d[32 * i], 32);
  sum<<<1, 1>>>(d, 32 * nstreams);  // expected-warning:3{{nonblocking-legacy-order}}
  cudaMemcpyAsync(h, d, sizeof(float), cudaMemcpyDeviceToHost, streams[0]);  // expected-warning:3{{nonblocking-legacy-order}}
  cudaEventRecord(done, 0);
  cudaEventSynchronize(done);
  return h[0];  // expected-warning:10{{nonblocking-legacy-order}}
}
