// A plain CUDA program with two streams and two stream-ordering bugs (the
// program two_streams.trace.txt was recorded from has the same shape):
//   * the kernel on s2 reads d_in before the copy on s1 has finished;
//   * the host reads h_out after synchronizing the wrong stream.
#include <cuda_runtime.h>

#include <cstdio>

__global__ void scale(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

int main() {
  const int n = 1 << 20;
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  float *d_in, *d_out, *h_in, *h_out;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMallocHost(&h_in, n * sizeof(float));
  cudaMallocHost(&h_out, n * sizeof(float));

  cudaMemcpyAsync(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice, s1);
  scale<<<(n + 255) / 256, 256, 0, s2>>>(d_in, d_out, n);  // reads d_in too early
  cudaMemcpyAsync(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost, s2);
  cudaStreamSynchronize(s1);                                // the wrong stream
  std::printf("%f\n", h_out[0]);                            // h_out may not be ready

  cudaFree(d_in);
  cudaFree(d_out);
  cudaFreeHost(h_in);
  cudaFreeHost(h_out);
  return 0;
}
