// Per-stream chunks of one buffer, each chunk's kernel reading its right
// neighbour (a stencil): "racy" lets the last element of each chunk read the
// first element of the next chunk, which the next stream is copying in at
// the same time. Fast mode cannot see that one element (each kernel's
// pointer is bounded where the next chunk starts); `run --precise` reports
// it exactly. "fixed" clamps the stencil to its own chunk.
#include "common.cuh"

__global__ void right_sum(const float* in, float* out, int n, int reach) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = in[i] + in[i + 1 < reach ? i + 1 : i];
}

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  constexpr int kStreams = 4, kChunk = kN / kStreams;
  cudaStream_t streams[kStreams];
  float *in, *out, *host_in;
  CHECK(cudaMalloc(&in, kN * sizeof(float)));
  CHECK(cudaMalloc(&out, kN * sizeof(float)));
  CHECK(cudaMallocHost(&host_in, kN * sizeof(float)));
  for (int i = 0; i < kN; ++i) host_in[i] = float(i);
  for (int i = 0; i < kStreams; ++i) CHECK(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
  for (int i = 0; i < kStreams; ++i) {
    const size_t off = size_t(i) * kChunk;
    CHECK(cudaMemcpyAsync(in + off, host_in + off, kChunk * sizeof(float), cudaMemcpyHostToDevice, streams[i]));
    const int reach = racy && i + 1 < kStreams ? kChunk + 1 : kChunk;
    right_sum<<<16, 256, 0, streams[i]>>>(in + off, out + off, kChunk, reach);
  }
  CHECK(cudaDeviceSynchronize());
  return 0;
}
