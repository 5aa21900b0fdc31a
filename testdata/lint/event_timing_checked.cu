// Timing a kernel with events through an error-check macro, as the samples
// do: reading the elapsed time needs the stop event to have completed, which
// only cudaEventSynchronize (or a stream/device synchronize) guarantees.
#include <cuda_runtime.h>
#include <cstdlib>

#define checkCudaErrors(call) do { if ((call) != cudaSuccess) abort(); } while (0)

__global__ void work(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = x[i] * x[i]; }

float racy(float* d, int n) {
  cudaEvent_t start, stop;
  checkCudaErrors(cudaEventCreate(&start));
  checkCudaErrors(cudaEventCreate(&stop));
  checkCudaErrors(cudaEventRecord(start, 0));
  work<<<(n + 255) / 256, 256>>>(d, n);
  checkCudaErrors(cudaEventRecord(stop, 0));
  float ms = 0;
  checkCudaErrors(cudaEventElapsedTime(&ms, start, stop));  // expected-warning:19{{unsynchronized-timing}}
  return ms;
}

float fixed(float* d, int n) {
  cudaEvent_t start, stop;
  checkCudaErrors(cudaEventCreate(&start));
  checkCudaErrors(cudaEventCreate(&stop));
  checkCudaErrors(cudaEventRecord(start, 0));
  work<<<(n + 255) / 256, 256>>>(d, n);
  checkCudaErrors(cudaEventRecord(stop, 0));
  checkCudaErrors(cudaEventSynchronize(stop));
  float ms = 0;
  checkCudaErrors(cudaEventElapsedTime(&ms, start, stop));
  return ms;
}
