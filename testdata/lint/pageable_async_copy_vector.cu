// cudaMemcpyAsync into a std::vector (pageable) is staged and may or may not
// run synchronously: reported when the host uses the vector before
// synchronizing the copy's stream, not when the synchronize comes first (the
// CUDALibrarySamples shape: copy back, cudaStreamSynchronize, print). From a
// vector, the driver has read it when the call returns (no warning).
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }

float racy(float* d, cudaStream_t s) {
  std::vector<float> host(1024, 1.0f);
  cudaMemcpyAsync(d, host.data(), 4096, cudaMemcpyHostToDevice, s);
  produce<<<4, 256, 0, s>>>(d, 1024);
  cudaMemcpyAsync(host.data(), d, 4096, cudaMemcpyDeviceToHost, s);  // expected-warning:3{{pageable-async-copy}}{{into pageable host memory `host` (std::vector) is staged}}
  const float first = host[0];
  cudaStreamSynchronize(s);
  return first;
}

float fixed(float* d, cudaStream_t s) {
  std::vector<float> host(1024, 1.0f);
  cudaMemcpyAsync(d, host.data(), 4096, cudaMemcpyHostToDevice, s);
  produce<<<4, 256, 0, s>>>(d, 1024);
  cudaMemcpyAsync(host.data(), d, 4096, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  std::printf("%f\n", host[0]);
  return host[1];
}

// More work on the stream between the copy and the synchronize is fine as
// long as the host leaves the vector alone until then.
float fixed_more_work_first(float* d, cudaStream_t s) {
  std::vector<float> host(1024);
  cudaMemcpyAsync(host.data(), d, 4096, cudaMemcpyDeviceToHost, s);
  produce<<<4, 256, 0, s>>>(d, 1024);
  cudaStreamSynchronize(s);
  return host[0];
}
