// A launch macro that hides the <<<>>> and checks cudaGetLastError: the race
// between the two launches is reported on the macro's line, and waiting on an
// event through the same kind of wrapper fixes it.
#include <cuda_runtime.h>
#include <cstdio>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) printf("%s\n", cudaGetErrorString(e_)); } while (0)
#define LAUNCH(kernel, n, stream, ...)                              \
  do {                                                              \
    kernel<<<((n) + 255) / 256, 256, 0, (stream)>>>(__VA_ARGS__);   \
    CUDA_CHECK(cudaGetLastError());                                 \
  } while (0)

__global__ void scale(float* x, float a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= a; }
__global__ void shift(float* x, float b, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += b; }

void racy(float* x, int n, cudaStream_t a, cudaStream_t b) {
  cudaStream_t mine;
  CUDA_CHECK(cudaStreamCreate(&mine));
  LAUNCH(scale, n, a, x, 2.0f, n);
  LAUNCH(shift, n, mine, x, 1.0f, n);  // expected-warning:10{{cross-stream-race}}
  CUDA_CHECK(cudaStreamSynchronize(mine));
}

void fixed(float* x, int n, cudaStream_t a, cudaStream_t b) {
  cudaStream_t mine;
  cudaEvent_t scaled;
  CUDA_CHECK(cudaStreamCreate(&mine));
  CUDA_CHECK(cudaEventCreate(&scaled));
  LAUNCH(scale, n, a, x, 2.0f, n);
  CUDA_CHECK(cudaEventRecord(scaled, a));
  CUDA_CHECK(cudaStreamWaitEvent(mine, scaled, 0));
  LAUNCH(shift, n, mine, x, 1.0f, n);
  CUDA_CHECK(cudaStreamSynchronize(mine));
}
