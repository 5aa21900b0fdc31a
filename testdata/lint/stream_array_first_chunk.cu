// The programming guide's chunks: stream i copies and processes chunk i of
// one allocation in a loop (`in + off`, `off = i * chunk`). A kernel on
// `streams[1]` that reads from `in` (chunk 0, stream 0's) without waiting
// races with the loop's first iteration (racy); one reading its own chunk
// (`in + chunk`) after stream 1's copy does not (fixed).
#include <cuda_runtime.h>

__global__ void scale(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

static void chunks(float* in, float* out, const float* host_in, cudaStream_t* streams, int chunk) {
  for (int i = 0; i < 4; ++i) {
    const size_t off = size_t(i) * chunk;
    cudaMemcpyAsync(in + off, host_in + off, chunk * sizeof(float), cudaMemcpyHostToDevice, streams[i]);
    scale<<<(chunk + 255) / 256, 256, 0, streams[i]>>>(in + off, out + off, chunk);
  }
}

void racy(float* in, float* out, const float* host_in, int chunk) {
  cudaStream_t streams[4];
  for (int i = 0; i < 4; ++i) cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking);
  chunks(in, out, host_in, streams, chunk);
  scale<<<(chunk + 255) / 256, 256, 0, streams[1]>>>(in, out + chunk, chunk);  // expected-warning:3{{cross-stream-race}}{{reads `in` while cudaMemcpyAsync on stream `streams[i]`}}
  cudaDeviceSynchronize();
}

void fixed(float* in, float* out, const float* host_in, int chunk) {
  cudaStream_t streams[4];
  for (int i = 0; i < 4; ++i) cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking);
  for (int i = 0; i < 4; ++i) {
    const size_t off = size_t(i) * chunk;
    cudaMemcpyAsync(in + off, host_in + off, chunk * sizeof(float), cudaMemcpyHostToDevice, streams[i]);
    scale<<<(chunk + 255) / 256, 256, 0, streams[i]>>>(in + off, out + off, chunk);
  }
  cudaDeviceSynchronize();
}
