// What `run --precise` costs a memory-bound kernel: an elementwise kernel
// over 64 MiB, launched LAUNCHES times between two synchronizations, timed
// on the host. Run natively, under `streamcheck run --precise` (the warp-
// merged log, and with STREAMCHECK_DEBUG=precise-per-access the per-lane
// one) and under compute-sanitizer's memcheck and racecheck. The device's
// time per launch (events around the loop) and the host's (to the end of the
// synchronization; the analysis of the last launches may still be running):
//   precise_cost [LAUNCHES] -> "precise_cost: N launches, X ms per launch (device Y ms)"
// With `rmw`, the kernel is cuda-samples simpleStreams' init_array instead:
// each thread reads and writes its element and reads one scalar, 5 times
// over (most of its accesses repeat ones logged a moment before).
// With `each`, every launch is synchronized before the next and timed by
// events of its own: the device's median is the instrumented kernel's time
// alone, without the gaps a slow host leaves between queued launches, unless
// a launch waits inside its call for a log the worker has not given back
// (under --precise the synchronization does not wait for the merges, so a
// launch whose log merges longer than the kernel runs finds none free):
//   precise_cost LAUNCHES each [rmw] -> "precise_cost: N launches one at a time, X ms per launch (device median Y ms)"
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void scale(const float* in, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = 2 * in[i];
}

__global__ void read_modify_write(float* data, const float* factor, int iterations) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < iterations; ++k) data[i] += *factor;
}

int main(int argc, char** argv) {
  const int launches = argc > 1 ? std::atoi(argv[1]) : 20;
  if (launches < 1) {
    std::fprintf(stderr, "usage: precise_cost [LAUNCHES >= 1] [each] [rmw]\n");
    return 2;
  }
  bool each = false, rmw = false;
  for (int i = 2; i < argc; ++i) {
    each |= std::strcmp(argv[i], "each") == 0;
    rmw |= std::strcmp(argv[i], "rmw") == 0;
  }
  constexpr int kN = 16 << 20;
  float *in, *out;
  if (cudaMalloc(&in, kN * sizeof(float)) != cudaSuccess || cudaMalloc(&out, kN * sizeof(float)) != cudaSuccess) return 3;
  cudaMemset(in, 0, kN * sizeof(float));
  auto launch = [&] {
    if (rmw) read_modify_write<<<kN / 256, 256>>>(out, in, 5);
    else scale<<<1024, 256>>>(in, out, kN);
  };
  launch();  // the first launch loads and patches the module
  cudaDeviceSynchronize();
  cudaEvent_t begin, end;
  cudaEventCreate(&begin);
  cudaEventCreate(&end);
  const auto start = std::chrono::steady_clock::now();
  if (each) {
    std::vector<float> device_ms(launches);
    for (int i = 0; i < launches; ++i) {
      cudaEventRecord(begin);
      launch();
      cudaEventRecord(end);
      if (cudaDeviceSynchronize() != cudaSuccess) return 3;
      cudaEventElapsedTime(&device_ms[i], begin, end);
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::sort(device_ms.begin(), device_ms.end());
    std::printf("precise_cost: %d launches one at a time, %.3f ms per launch (device median %.3f ms)\n", launches,
                ms / launches, device_ms[launches / 2]);
    return 0;
  }
  cudaEventRecord(begin);
  for (int i = 0; i < launches; ++i) launch();
  cudaEventRecord(end);
  if (cudaDeviceSynchronize() != cudaSuccess) return 3;
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  float device_ms = 0;
  cudaEventElapsedTime(&device_ms, begin, end);
  std::printf("precise_cost: %d launches, %.3f ms per launch (device %.3f ms)\n", launches, ms / launches,
              device_ms / launches);
  return 0;
}
