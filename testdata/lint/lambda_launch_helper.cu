// A local lambda that launches on the stream it is given, capturing the
// buffers by reference: the two calls put writer and reader on different
// streams; the fixed twin joins them with an event.
#include <cuda_runtime.h>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }

void racy(float* a, float* b, int n) {
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  auto write = [&](cudaStream_t s) { produce<<<4, 256, 0, s>>>(a, n); };
  auto read = [&](cudaStream_t s) { consume<<<4, 256, 0, s>>>(a, b, n); };
  write(s1);
  read(s2);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
}

void fixed(float* a, float* b, int n) {
  cudaStream_t s1, s2;
  cudaEvent_t written;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  cudaEventCreate(&written);
  auto write = [&](cudaStream_t s) { produce<<<4, 256, 0, s>>>(a, n); };
  auto read = [&](cudaStream_t s) { consume<<<4, 256, 0, s>>>(a, b, n); };
  write(s1);
  cudaEventRecord(written, s1);
  cudaStreamWaitEvent(s2, written, 0);
  read(s2);
  cudaDeviceSynchronize();
}
