// The CUDA programming guide's pattern: per-stream chunks of one allocation,
// copy in / kernel / copy out. Disjoint slices never race ("racy" adds a
// kernel on stream 1 that reads stream 0's input chunk without waiting).
#include "common.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  constexpr int kStreams = 4, kChunk = kN / kStreams;
  cudaStream_t streams[kStreams];
  float *in, *out, *host_in, *host_out;
  CHECK(cudaMalloc(&in, kN * sizeof(float)));
  CHECK(cudaMalloc(&out, kN * sizeof(float)));
  CHECK(cudaMallocHost(&host_in, kN * sizeof(float)));
  CHECK(cudaMallocHost(&host_out, kN * sizeof(float)));
  for (int i = 0; i < kStreams; ++i) CHECK(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
  for (int i = 0; i < kStreams; ++i) {
    const size_t off = size_t(i) * kChunk;
    CHECK(cudaMemcpyAsync(in + off, host_in + off, kChunk * sizeof(float), cudaMemcpyHostToDevice, streams[i]));
    scale<<<16, 256, 0, streams[i]>>>(in + off, out + off, kChunk);
    CHECK(cudaMemcpyAsync(host_out + off, out + off, kChunk * sizeof(float), cudaMemcpyDeviceToHost, streams[i]));
  }
  if (racy) scale<<<16, 256, 0, streams[1]>>>(in, out + kChunk, kChunk);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
