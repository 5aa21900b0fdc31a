// The simpleStreams pattern: an array of streams, each copying its chunk of
// a pinned buffer back. Synchronizing one stream does not make the others'
// chunks safe to read; synchronizing every stream in a loop does.
#include <cuda_runtime.h>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }

float racy(float* d, float* h, int n) {
  const int nstreams = 4;
  cudaStream_t streams[nstreams];
  for (int i = 0; i < nstreams; i++) cudaStreamCreate(&streams[i]);
  const int chunk = n / nstreams;
  for (int i = 0; i < nstreams; i++) {
    produce<<<chunk / 256, 256, 0, streams[i]>>>(d + i * chunk, chunk);
    cudaMemcpyAsync(h + i * chunk, d + i * chunk, chunk * sizeof(float), cudaMemcpyDeviceToHost, streams[i]);
  }
  cudaStreamSynchronize(streams[nstreams - 1]);
  return h[0];  // expected-warning:10{{host-device-race}}
}

float fixed(float* d, float* h, int n) {
  const int nstreams = 4;
  cudaStream_t streams[nstreams];
  for (int i = 0; i < nstreams; i++) cudaStreamCreate(&streams[i]);
  const int chunk = n / nstreams;
  for (int i = 0; i < nstreams; i++) {
    produce<<<chunk / 256, 256, 0, streams[i]>>>(d + i * chunk, chunk);
    cudaMemcpyAsync(h + i * chunk, d + i * chunk, chunk * sizeof(float), cudaMemcpyDeviceToHost, streams[i]);
  }
  for (int i = 0; i < nstreams; i++) cudaStreamSynchronize(streams[i]);
  return h[0];
}
