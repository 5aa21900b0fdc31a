// After the host synchronized the allocating stream (or the device), any
// stream may use stream-ordered memory (fixed); the legacy default stream
// waits for the blocking stream that allocated (fixed_legacy); a
// non-blocking one's allocation it does not wait for (racy).
#include <cuda_runtime.h>

__global__ void init(float* buf, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) buf[i] = 0;
}

void fixed(int n) {
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  float* buf;
  cudaMallocAsync(&buf, n * sizeof(float), s1);
  cudaStreamSynchronize(s1);
  init<<<(n + 255) / 256, 256, 0, s2>>>(buf, n);
  cudaFreeAsync(buf, s2);
  cudaDeviceSynchronize();
}

void fixed_legacy(int n) {
  cudaStream_t blocking;
  cudaStreamCreate(&blocking);
  float* buf;
  cudaMallocAsync(&buf, n * sizeof(float), blocking);
  init<<<(n + 255) / 256, 256>>>(buf, n);
  cudaFreeAsync(buf, 0);
  cudaDeviceSynchronize();
}

void racy(int n) {
  cudaStream_t nonblocking;
  cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking);
  float* buf;
  cudaMallocAsync(&buf, n * sizeof(float), nonblocking);
  init<<<(n + 255) / 256, 256>>>(buf, n);  // expected-warning:3{{use-before-allocation}}{{on the legacy default stream writes `buf`}}
  cudaFreeAsync(buf, 0);
  cudaDeviceSynchronize();
}
