// use-before-allocation: cudaMallocAsync is an operation on its stream; work
// on another stream that is not ordered after it may use the memory before
// the pool has handed it over (racy). Allocating on the using stream, or an
// event recorded after the allocation and waited on, orders the use (fixed).
#include <cuda_runtime.h>

__global__ void init(float* buf, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) buf[i] = 0;
}
__global__ void consume(const float* buf, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = buf[i];
}

void racy(float* out, int n) {
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  float* buf;
  cudaMallocAsync(&buf, n * sizeof(float), s1);
  init<<<(n + 255) / 256, 256, 0, s2>>>(buf, n);  // expected-warning:3{{use-before-allocation}}{{kernel `init` on stream `s2` (non-blocking) writes `buf`, allocated by cudaMallocAsync on stream `s1` (non-blocking), and nothing orders it after the allocation}}
  consume<<<(n + 255) / 256, 256, 0, s2>>>(buf, out, n);
  cudaFreeAsync(buf, s2);
  cudaStreamSynchronize(s2);
}

void fixed_same_stream(float* out, int n) {
  cudaStream_t s2;
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  float* buf;
  cudaMallocAsync(&buf, n * sizeof(float), s2);
  init<<<(n + 255) / 256, 256, 0, s2>>>(buf, n);
  consume<<<(n + 255) / 256, 256, 0, s2>>>(buf, out, n);
  cudaFreeAsync(buf, s2);
  cudaStreamSynchronize(s2);
}

void fixed_event(float* out, int n) {
  cudaStream_t s1, s2;
  cudaEvent_t allocated;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  cudaEventCreateWithFlags(&allocated, cudaEventDisableTiming);
  float* buf;
  cudaMallocAsync(&buf, n * sizeof(float), s1);
  cudaEventRecord(allocated, s1);
  cudaStreamWaitEvent(s2, allocated, 0);
  init<<<(n + 255) / 256, 256, 0, s2>>>(buf, n);
  consume<<<(n + 255) / 256, 256, 0, s2>>>(buf, out, n);
  cudaFreeAsync(buf, s2);
  cudaStreamSynchronize(s2);
}
