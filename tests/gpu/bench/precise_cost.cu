// What `run --precise` costs a memory-bound kernel: an elementwise kernel
// over 64 MiB, launched LAUNCHES times between two synchronizations, timed
// on the host. Run natively, under `streamcheck run --precise` (the warp-
// merged log, and with STREAMCHECK_DEBUG=precise-per-access the per-lane
// one) and under compute-sanitizer's memcheck and racecheck. The device's
// time per launch (events around the loop) and the host's (to the end of the
// synchronization, which under streamcheck waits for the analysis too):
//   precise_cost [LAUNCHES] -> "precise_cost: N launches, X ms per launch (device Y ms)"
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void scale(const float* in, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = 2 * in[i];
}

int main(int argc, char** argv) {
  const int launches = argc > 1 ? std::atoi(argv[1]) : 20;
  constexpr int kN = 16 << 20;
  float *in, *out;
  if (cudaMalloc(&in, kN * sizeof(float)) != cudaSuccess || cudaMalloc(&out, kN * sizeof(float)) != cudaSuccess) return 3;
  cudaMemset(in, 0, kN * sizeof(float));
  scale<<<1024, 256>>>(in, out, kN);  // the first launch loads and patches the module
  cudaDeviceSynchronize();
  cudaEvent_t begin, end;
  cudaEventCreate(&begin);
  cudaEventCreate(&end);
  const auto start = std::chrono::steady_clock::now();
  cudaEventRecord(begin);
  for (int i = 0; i < launches; ++i) scale<<<1024, 256>>>(in, out, kN);
  cudaEventRecord(end);
  if (cudaDeviceSynchronize() != cudaSuccess) return 3;
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  float device_ms = 0;
  cudaEventElapsedTime(&device_ms, begin, end);
  std::printf("precise_cost: %d launches, %.3f ms per launch (device %.3f ms)\n", launches, ms / launches,
              device_ms / launches);
  return 0;
}
