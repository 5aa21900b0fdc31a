// A crash (SIGSEGV) straight after the racing launches, with no host
// synchronization between: the tracer's analysis worker may not have reached
// them yet, so the crash handler must let it finish before the signal kills
// the process. The finding must be in the database all the same.
#include <csignal>

#include "common.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t s1, s2;
  cudaEvent_t done;
  float *a, *b;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  CHECK(cudaMalloc(&a, kN * sizeof(float)));
  CHECK(cudaMalloc(&b, kN * sizeof(float)));
  spin_then_fill<<<64, 256, 0, s1>>>(a, 1000000, kN);
  if (!racy) {
    CHECK(cudaEventRecord(done, s1));
    CHECK(cudaStreamWaitEvent(s2, done, 0));
  }
  scale<<<64, 256, 0, s2>>>(a, b, kN);
  std::raise(SIGSEGV);
  return 0;
}
