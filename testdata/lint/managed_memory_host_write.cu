// Unified Memory (cudaMallocManaged): the host may touch it directly, but not
// while a kernel still uses it (on devices without concurrent managed access
// it even faults). A stream or device synchronize orders the host after the
// kernel.
#include <cuda_runtime.h>

__global__ void increment(int* counts, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) counts[i] += 1; }

int racy(int n) {
  int* counts;
  cudaMallocManaged(&counts, n * sizeof(int));
  cudaStream_t s;
  cudaStreamCreate(&s);
  increment<<<(n + 255) / 256, 256, 0, s>>>(counts, n);
  counts[0] = 0;  // expected-warning:3{{host-device-race}}
  cudaStreamSynchronize(s);
  return counts[0];
}

int fixed(int n) {
  int* counts;
  cudaMallocManaged(&counts, n * sizeof(int));
  cudaStream_t s;
  cudaStreamCreate(&s);
  increment<<<(n + 255) / 256, 256, 0, s>>>(counts, n);
  cudaStreamSynchronize(s);
  counts[0] = 0;
  return counts[0];
}
