// A helper that makes and returns a stream (with an error check that exits):
// each call's stream is its own, and the caller's variables name them. The
// kernel on `second` reads what the kernel on `first` writes (racy); an
// event orders them (fixed). The exit() of the check never returns to the
// caller, so it does not blur what the helper returned.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                              \
  do {                                                           \
    cudaError_t status_ = (call);                                \
    if (status_ != cudaSuccess) {                                \
      std::fprintf(stderr, "%s\n", cudaGetErrorString(status_)); \
      std::exit(1);                                              \
    }                                                            \
  } while (0)

__global__ void produce(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}
__global__ void consume(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

static cudaStream_t make_stream() {
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return s;
}

void racy(float* a, float* b, int n) {
  cudaStream_t first = make_stream(), second = make_stream();
  produce<<<(n + 255) / 256, 256, 0, first>>>(a, n);
  consume<<<(n + 255) / 256, 256, 0, second>>>(a, b, n);  // expected-warning:3{{cross-stream-race}}{{on stream `s` (non-blocking) reads `a` while kernel `produce` on stream `s` (non-blocking)}}
  CHECK(cudaDeviceSynchronize());
}

void fixed(float* a, float* b, int n) {
  cudaStream_t first = make_stream(), second = make_stream();
  cudaEvent_t produced;
  CHECK(cudaEventCreate(&produced));
  produce<<<(n + 255) / 256, 256, 0, first>>>(a, n);
  CHECK(cudaEventRecord(produced, first));
  CHECK(cudaStreamWaitEvent(second, produced, 0));
  consume<<<(n + 255) / 256, 256, 0, second>>>(a, b, n);
  CHECK(cudaDeviceSynchronize());
}
