// What nvcc's CUDA headers bring into every .cu file and clang's wrapper does
// not: the C headers (clock(), memcpy(), printf() without an #include), host
// overloads of isfinite/isnan in the global namespace, and the cache-hint
// stores (__stcs). Each used to stop the host parse of the function using it,
// leaving it out; now every function is analysed and the race is found.
#include <cuda_runtime.h>

__global__ void scale(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) __stcs(&out[i], in[i] * 2.0f);
}

double racy(float* d_in, float* d_out, float* pinned, const float* src, int n, cudaStream_t s) {
  const clock_t start = clock();
  memcpy(pinned, src, n * sizeof(float));
  cudaMemcpyAsync(d_in, pinned, n * sizeof(float), cudaMemcpyHostToDevice, s);
  scale<<<(n + 255) / 256, 256, 0, s>>>(d_out, d_in, n);
  cudaMemcpyAsync(pinned, d_out, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  if (!isfinite(pinned[0])) printf("not finite\n");  // expected-warning:17{{host-device-race}}
  cudaStreamSynchronize(s);
  return static_cast<double>(clock() - start);
}

double fixed(float* d_in, float* d_out, float* pinned, int n, cudaStream_t s) {
  const clock_t start = clock();
  scale<<<(n + 255) / 256, 256, 0, s>>>(d_out, d_in, n);
  cudaMemcpyAsync(pinned, d_out, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  if (isnan(pinned[0])) printf("nan\n");
  return static_cast<double>(clock() - start);
}
