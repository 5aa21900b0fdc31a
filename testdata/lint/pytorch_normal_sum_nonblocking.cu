// PyTorch docs: A = empty().normal_() on the default stream, then with stream(s): sum(A). PyTorch's side streams are non-blocking, so nothing orders them.
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <vector>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }
__global__ void reduce(const float* in, float* total, int n) { int i = threadIdx.x; if (i < n) atomicAdd(total, in[i]); }

__global__ void normal_(float* a, int n) { int i = threadIdx.x; if (i < n) a[i] = 0.5f; }
int main() {
  const int n = 256;
  float *A, *B;
  cudaMalloc(&A, n * sizeof(float));
  cudaMalloc(&B, sizeof(float));
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);  // torch.cuda.Stream()
  normal_<<<1, n>>>(A, n);                                 // A.normal_() on the current (default) stream
  reduce<<<1, n, 0, s>>>(A, B, n);  // expected-warning:3{{nonblocking-legacy-order}}
  cudaDeviceSynchronize();
  return 0;
}
