// A synchronous cudaMemcpy between two pinned buffers is issued to the legacy
// default stream: it waits for earlier work of blocking streams (fixed: the
// kernel that fills the source runs on one) and not of non-blocking ones
// (racy), and the host waits for it.
#include "common.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t s;
  float *src, *dst;
  CHECK(cudaStreamCreateWithFlags(&s, racy ? cudaStreamNonBlocking : cudaStreamDefault));
  CHECK(cudaMallocHost(&src, kN * sizeof(float)));
  CHECK(cudaMallocHost(&dst, kN * sizeof(float)));
  for (int i = 0; i < kN; ++i) src[i] = dst[i] = 0;
  spin_then_fill<<<64, 256, 0, s>>>(src, 1000000, kN);
  CHECK(cudaMemcpy(dst, src, kN * sizeof(float), cudaMemcpyHostToHost));
  // The first element is copied first: 1 when the copy started after the
  // kernel. On stderr: the racy value depends on timing, and the GPU runner
  // compares stdout with and without the tracer.
  std::fprintf(stderr, "copied %g\n", dst[0]);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
