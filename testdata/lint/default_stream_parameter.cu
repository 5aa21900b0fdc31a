// A helper whose stream parameter defaults to 0: called without a stream it
// runs on the legacy default stream, which a non-blocking stream does not
// wait for; passing the stream keeps the work in one stream.
#include <cuda_runtime.h>

__global__ void fill(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 1; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }

static void initialize(float* d, int n, cudaStream_t stream = 0) { fill<<<(n + 255) / 256, 256, 0, stream>>>(d, n); }

void racy(float* d, float* out, int n) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  initialize(d, n);
  consume<<<(n + 255) / 256, 256, 0, s>>>(d, out, n);  // expected-warning:3{{nonblocking-legacy-order}}
  cudaStreamSynchronize(s);
}

void fixed(float* d, float* out, int n) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  initialize(d, n, s);
  consume<<<(n + 255) / 256, 256, 0, s>>>(d, out, n);
  cudaStreamSynchronize(s);
}
