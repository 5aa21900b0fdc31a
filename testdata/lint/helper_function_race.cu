// The race crosses helper functions: the launch and the copy are in helpers taking the stream and buffer.
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <vector>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }
__global__ void reduce(const float* in, float* total, int n) { int i = threadIdx.x; if (i < n) atomicAdd(total, in[i]); }

static void launch_produce(float* buf, cudaStream_t stream) { produce<<<4, 256, 0, stream>>>(buf, 1024); }
static void download(float* host, const float* dev, cudaStream_t stream) {
  cudaMemcpyAsync(host, dev, 4096, cudaMemcpyDeviceToHost, stream);
}
int main() {
  float *d, *h;
  cudaMalloc(&d, 4096); cudaMallocHost(&h, 4096);
  cudaStream_t compute, copy;
  cudaStreamCreate(&compute);
  cudaStreamCreate(&copy);
  launch_produce(d, compute);
  download(h, d, copy);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
  return 0;
}
