// A host clock read after a polling loop that waited for the timed work is
// a synchronized timing (fixed); after a single query, it is not (racy:
// unsynchronized-timing).
#include <chrono>
#include <cuda_runtime.h>
#include <thread>

__global__ void work(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += 1;
}

double fixed(float* d, int n, cudaStream_t s, cudaEvent_t done) {
  const auto t0 = std::chrono::steady_clock::now();
  work<<<(n + 255) / 256, 256, 0, s>>>(d, n);
  cudaEventRecord(done, s);
  cudaError_t status;
  do {
    std::this_thread::yield();
    status = cudaEventQuery(done);
  } while (status == cudaErrorNotReady);
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
}

double racy(float* d, int n, cudaStream_t s, cudaEvent_t done) {
  const auto t0 = std::chrono::steady_clock::now();
  work<<<(n + 255) / 256, 256, 0, s>>>(d, n);
  cudaEventRecord(done, s);
  const cudaError_t status = cudaEventQuery(done);
  const auto t1 = std::chrono::steady_clock::now();  // expected-warning:19{{unsynchronized-timing}}
  (void)status;
  return std::chrono::duration<double>(t1 - t0).count();
}
