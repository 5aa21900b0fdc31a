// nvcc takes a braced list as a launch-configuration argument (dim3's
// initializer: `<<<grid, {32, 8, 1}, 0, s>>>`); clang's parser of `<<<...>>>`
// does not, and the function holding such a launch went unanalysed (exit 3,
// `main` of multi-gpu-programming-models' Jacobi solvers). The lint reads the
// braces as parentheses, same columns: the function is analysed, its race
// found (racy) and its synchronized twin silent (fixed).
#include <cuda_runtime.h>

template <int BX, int BY>
__global__ void relax(float* out, const float* in, int nx) {
  int x = blockIdx.x * BX + threadIdx.x;
  if (x < nx) out[x] = 0.5f * in[x];
}

float fixed(float* d_out, const float* d_in, float* pinned, int nx, cudaStream_t s) {
  constexpr int bx = 32, by = 8;
  dim3 grid((nx + bx - 1) / bx, 1, 1);
  relax<bx, by><<<grid, {bx, by, 1}, 0, s>>>(d_out, d_in, nx);
  cudaMemcpyAsync(pinned, d_out, nx * sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  return pinned[0];
}

float racy(float* d_out, const float* d_in, float* pinned, int nx, cudaStream_t s) {
  constexpr int bx = 32, by = 8;
  dim3 grid((nx + bx - 1) / bx, 1, 1);
  relax<bx, by>
      <<<grid, /* block */ {bx, by, 1}, 0, s>>>(d_out, d_in, nx);
  cudaMemcpyAsync(pinned, d_out, nx * sizeof(float), cudaMemcpyDeviceToHost, s);
  return pinned[0];  // expected-warning:10{{host-device-race}}
}

// Braces elsewhere on the line (a lambda's body, an initializer) are left as written.
float racy_braces_around(float* d_out, const float* d_in, float* pinned, int nx, cudaStream_t s) {
  const char* label = "<<<{ not a launch }>>>";
  (void)label;
  auto launch = [&](dim3 grid) { relax<32, 8><<<{grid.x, 1, 1}, {32, 8, 1}, 0, s>>>(d_out, d_in, nx); };
  launch(dim3{(unsigned)(nx + 31) / 32, 1, 1});
  cudaMemcpyAsync(pinned, d_out, nx * sizeof(float), cudaMemcpyDeviceToHost, s);
  return pinned[0];  // expected-warning:10{{host-device-race}}
}
