// A peer copy from GPU 0 to GPU 1 (cudaMemcpyPeerAsync on a stream of GPU
// 0) and a kernel on GPU 1 reading what it copied: racy with nothing
// between them, fixed with an event recorded after the copy and waited on
// by GPU 1's stream. Needs two GPUs (exit 77 with fewer).
#include "../scenarios/common.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  if (devices < 2) {
    std::fprintf(stderr, "peer_copy needs two GPUs, found %d\n", devices);
    return 77;
  }
  cudaStream_t copy_stream, reader_stream;
  cudaEvent_t copied;
  float *src, *dst, *out;
  CHECK(cudaSetDevice(0));
  CHECK(cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking));
  CHECK(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming));
  CHECK(cudaMalloc(&src, kN * sizeof(float)));
  fill<<<64, 256, 0, copy_stream>>>(src, 3.0f, kN);
  CHECK(cudaSetDevice(1));
  CHECK(cudaStreamCreateWithFlags(&reader_stream, cudaStreamNonBlocking));
  CHECK(cudaMalloc(&dst, kN * sizeof(float)));
  CHECK(cudaMalloc(&out, kN * sizeof(float)));
  CHECK(cudaDeviceSynchronize());  // dst's allocation is done before the copy
  CHECK(cudaSetDevice(0));
  CHECK(cudaMemcpyPeerAsync(dst, 1, src, 0, kN * sizeof(float), copy_stream));
  if (!racy) CHECK(cudaEventRecord(copied, copy_stream));
  CHECK(cudaSetDevice(1));
  if (!racy) CHECK(cudaStreamWaitEvent(reader_stream, copied, 0));
  scale<<<64, 256, 0, reader_stream>>>(dst, out, kN);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaSetDevice(0));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(src));
  CHECK(cudaSetDevice(1));
  CHECK(cudaFree(dst));
  CHECK(cudaFree(out));
  return 0;
}
