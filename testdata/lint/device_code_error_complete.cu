// A compile error in device code only (a kernel calls an intrinsic the host
// parse does not declare): the host functions are all analysed, the error is
// shown and said to be in code the analysis does not need, and the exit
// status is that of the findings (1), not "incomplete". What a kernel that
// does not compile does to its buffers is unknown (its writing statement may
// be the one lost), so it "may write" every non-const pointer it is given.
#include <cuda_runtime.h>

__global__ void produce(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = device_intrinsic_this_build_lacks(i);
}

// Its write assigns a variable of a type this build lacks (the note says the
// kernel "may write" `b`: lint.broken_kernel_may_write).
__global__ void fill(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  half_precision_type_this_build_lacks v = in[i];
  if (i < n) out[i] = v;
}

void racy(float* a, float* b, int n) {
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  produce<<<(n + 255) / 256, 256, 0, s1>>>(a, n);
  cudaMemcpyAsync(b, a, n * sizeof(float), cudaMemcpyDeviceToDevice, s2);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
}

void racy_lost_write(const float* a, float* b, float* c, int n) {
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  fill<<<(n + 255) / 256, 256, 0, s1>>>(a, b, n);
  cudaMemcpyAsync(c, b, n * sizeof(float), cudaMemcpyDeviceToDevice, s2);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
}
