// Overhead benchmark (a): many small kernel launches round-robin over 4
// streams, with an event fork/join every 64 launches (the join makes stream 0
// wait for the others, the fork makes the others wait for stream 0). Prints
// microseconds per launch of host time, which is what the tracer adds to.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                    \
  do {                                                                                 \
    cudaError_t err_ = (call);                                                         \
    if (err_ != cudaSuccess) {                                                         \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(3);                                                                    \
    }                                                                                  \
  } while (0)

__global__ void axpy(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 0.5f * x[i];
}

int main(int argc, char** argv) {
  const int launches = argc > 1 ? std::atoi(argv[1]) : 200000;
  constexpr int kStreams = 4, kN = 1024, kJoinEvery = 64;
  cudaStream_t s[kStreams];
  cudaEvent_t done[kStreams];
  float *x, *y[kStreams];
  for (int i = 0; i < kStreams; ++i) {
    CHECK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming));
    CHECK(cudaMalloc(&y[i], kN * sizeof(float)));
  }
  CHECK(cudaMalloc(&x, kN * sizeof(float)));
  CHECK(cudaMemset(x, 0, kN * sizeof(float)));
  CHECK(cudaDeviceSynchronize());
  auto run = [&](int count) {
    for (int k = 0; k < count; ++k) {
      const int i = k % kStreams;
      axpy<<<kN / 256, 256, 0, s[i]>>>(x, y[i], kN);
      if (k % kJoinEvery == kJoinEvery - 1) {
        for (int j = 1; j < kStreams; ++j) {  // join into stream 0
          CHECK(cudaEventRecord(done[j], s[j]));
          CHECK(cudaStreamWaitEvent(s[0], done[j], 0));
        }
        CHECK(cudaEventRecord(done[0], s[0]));  // fork from stream 0
        for (int j = 1; j < kStreams; ++j) CHECK(cudaStreamWaitEvent(s[j], done[0], 0));
      }
    }
    CHECK(cudaDeviceSynchronize());
  };
  run(2000);  // warm-up: module loading, first-launch costs
  const auto t0 = std::chrono::steady_clock::now();
  run(launches);
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  std::printf("launch_rate launches=%d us_per_launch=%.3f\n", launches, us / launches);
  return 0;
}
