// two_streams.cu with both bugs fixed: an event orders the kernel after the
// copy, and the host synchronizes the stream that produced h_out.
#include <cuda_runtime.h>

#include <cstdio>

__global__ void scale(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

int main() {
  const int n = 1 << 20;
  cudaStream_t s1, s2;
  cudaEvent_t copied;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  cudaEventCreateWithFlags(&copied, cudaEventDisableTiming);
  float *d_in, *d_out, *h_in, *h_out;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMallocHost(&h_in, n * sizeof(float));
  cudaMallocHost(&h_out, n * sizeof(float));

  cudaMemcpyAsync(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice, s1);
  cudaEventRecord(copied, s1);
  cudaStreamWaitEvent(s2, copied, 0);
  scale<<<(n + 255) / 256, 256, 0, s2>>>(d_in, d_out, n);
  cudaMemcpyAsync(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost, s2);
  cudaStreamSynchronize(s2);
  std::printf("%f\n", h_out[0]);

  cudaFree(d_in);
  cudaFree(d_out);
  cudaFreeHost(h_in);
  cudaFreeHost(h_out);
  return 0;
}
