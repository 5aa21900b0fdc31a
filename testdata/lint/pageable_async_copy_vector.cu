// cudaMemcpyAsync into a std::vector (pageable) may run synchronously; from
// one, the driver has read it when the call returns (no warning).
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <vector>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }
__global__ void reduce(const float* in, float* total, int n) { int i = threadIdx.x; if (i < n) atomicAdd(total, in[i]); }

int main() {
  std::vector<float> host(1024, 1.0f);
  float* d;
  cudaMalloc(&d, 4096);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaMemcpyAsync(d, host.data(), 4096, cudaMemcpyHostToDevice, s);
  cudaMemcpyAsync(host.data(), d, 4096, cudaMemcpyDeviceToHost, s);  // expected-warning:3{{pageable-async-copy}}
  cudaStreamSynchronize(s);
  return 0;
}
