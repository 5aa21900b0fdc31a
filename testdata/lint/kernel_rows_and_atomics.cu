// One kernel launched on one buffer for different rows, chosen by its scalar
// arguments (a halo row on one stream, the interior on another: the
// multi-GPU Jacobi solvers' `iy_start, iy_start + 1` and
// `iy_start + 1, iy_end - 1`), may touch disjoint parts: not reported, as
// other offsets that cannot be compared are not (fixed). Kernels that only
// atomicAdd into one sum do not race with each other (fixed). The same rows
// twice, or a plain write beside the atomics, are reported (racy).
#include <cuda_runtime.h>

__global__ void smooth_rows(float* out, const float* in, float* sum, int row_begin, int row_end, int nx) {
  const int iy = blockIdx.y * blockDim.y + threadIdx.y + row_begin;
  const int ix = blockIdx.x * blockDim.x + threadIdx.x;
  if (iy < row_end && ix < nx) {
    const float v = 0.5f * (in[iy * nx + ix] + in[(iy - 1) * nx + ix]);
    out[iy * nx + ix] = v;
    atomicAdd(sum, v * v);
  }
}

__global__ void scale_all(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] *= 2.0f;
}

void fixed_halo_and_interior(float* out, const float* in, float* sum, int first, int last, int nx) {
  cudaStream_t halo, bulk;
  cudaStreamCreate(&halo);
  cudaStreamCreate(&bulk);
  smooth_rows<<<dim3(nx / 32, 1), dim3(32, 1), 0, halo>>>(out, in, sum, first, first + 1, nx);
  smooth_rows<<<dim3(nx / 32, 64), dim3(32, 8), 0, bulk>>>(out, in, sum, first + 1, last - 1, nx);
  smooth_rows<<<dim3(nx / 32, 1), dim3(32, 1), 0, halo>>>(out, in, sum, last - 1, last, nx);
}

void racy_same_rows(float* out, const float* in, float* sum, int first, int last, int nx) {
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  smooth_rows<<<dim3(nx / 32, 64), dim3(32, 8), 0, a>>>(out, in, sum, first, last, nx);
  smooth_rows<<<dim3(nx / 32, 64), dim3(32, 8), 0, b>>>(out, in, sum, first, last, nx);  // expected-warning:3{{cross-stream-race}}{{writes `out`}}
}

void racy_reset_beside_atomics(float* out, const float* in, float* sum, int first, int last, int nx) {
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  smooth_rows<<<dim3(nx / 32, 64), dim3(32, 8), 0, a>>>(out, in, sum, first, last, nx);
  cudaMemsetAsync(sum, 0, sizeof(float), b);  // expected-warning:3{{cross-stream-race}}{{writes `sum`}}
}

// A kernel indexed by its threads alone covers the same elements whatever
// its other arguments: still a race.
void racy_whole_buffer(float* out, int n) {
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  scale_all<<<n / 256, 256, 0, a>>>(out, n);
  scale_all<<<n / 512, 256, 0, b>>>(out, n / 2);  // expected-warning:3{{cross-stream-race}}
}
