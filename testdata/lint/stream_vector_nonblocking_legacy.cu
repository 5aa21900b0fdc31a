// A std::vector of streams made non-blocking in a loop: work on them is not
// ordered with the legacy default stream, which a blocking vector of streams
// would have been.
#include <cuda_runtime.h>
#include <vector>

__global__ void fill(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }

void racy(float* d, float* out, int n, int count) {
  std::vector<cudaStream_t> streams(count);
  for (int i = 0; i < count; ++i) cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking);
  for (int i = 0; i < count; ++i) fill<<<1, 256, 0, streams[i]>>>(d, n);
  consume<<<1, 256>>>(d, out, n);  // expected-warning:3{{nonblocking-legacy-order}}
  cudaDeviceSynchronize();
}

void fixed(float* d, float* out, int n, int count) {
  std::vector<cudaStream_t> streams(count);
  for (int i = 0; i < count; ++i) cudaStreamCreate(&streams[i]);
  for (int i = 0; i < count; ++i) fill<<<1, 256, 0, streams[i]>>>(d, n);
  consume<<<1, 256>>>(d, out, n);
  cudaDeviceSynchronize();
}
