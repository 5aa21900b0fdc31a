// A kernel that adds into a total only `if (with_total)`, a bool parameter it
// never assigns (the multi-GPU Jacobi solvers' `calculate_norm`): a launch
// passing false does not touch the total, and one passing a variable touches
// it only if the variable holds. The host waits for the edge kernels only
// when the flag was set, and resets the total at the top of the next pass:
// on the other paths the kernels left the total alone (fixed). Waiting on the
// wrong branch, or a flag written between the launch and the test, is still
// reported (racy).
#include <cuda_runtime.h>

__global__ void relax_rows(float* next, const float* cur, float* total, int first, int last, int nx,
                           bool with_total) {
  const int iy = blockIdx.y * blockDim.y + threadIdx.y + first;
  const int ix = blockIdx.x * blockDim.x + threadIdx.x;
  float square = 0.0f;
  if (iy < last && ix < nx) {
    const float v = 0.5f * (cur[iy * nx + ix] + cur[(iy + 1) * nx + ix]);
    next[iy * nx + ix] = v;
    square = v * v;
  }
  if (with_total) {
    atomicAdd(total, square);
  }
}

void fixed_total_on_flagged_passes(float* next, const float* cur, float* total, float* host_total, int nx,
                                   int passes, int every) {
  cudaStream_t main_s, edge_s;
  cudaStreamCreate(&main_s);
  cudaStreamCreate(&edge_s);
  cudaEvent_t reset_done, edge_done;
  cudaEventCreate(&reset_done);
  cudaEventCreate(&edge_done);
  for (int p = 0; p < passes; ++p) {
    cudaMemsetAsync(total, 0, sizeof(float), main_s);
    cudaEventRecord(reset_done, main_s);
    const bool with_total = p % every == 0;
    cudaStreamWaitEvent(edge_s, reset_done, 0);
    relax_rows<<<dim3(nx / 32, 1), dim3(32, 1), 0, edge_s>>>(next, cur, total, 0, 1, nx, with_total);
    cudaEventRecord(edge_done, edge_s);
    if (with_total) {
      cudaStreamWaitEvent(main_s, edge_done, 0);
      cudaMemcpyAsync(host_total, total, sizeof(float), cudaMemcpyDeviceToHost, main_s);
      cudaStreamSynchronize(main_s);
    }
  }
}

// A constant false: the total is never touched.
void fixed_constant_false(float* next, const float* cur, float* total, int nx) {
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  relax_rows<<<dim3(nx / 32, 1), dim3(32, 1), 0, a>>>(next, cur, total, 0, 1, nx, false);
  cudaMemsetAsync(total, 0, sizeof(float), b);
}

void racy_constant_true(float* next, const float* cur, float* total, int nx) {
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  relax_rows<<<dim3(nx / 32, 1), dim3(32, 1), 0, a>>>(next, cur, total, 0, 1, nx, true);
  cudaMemsetAsync(total, 0, sizeof(float), b);  // expected-warning:3{{cross-stream-race}}{{writes `total`}}
}

// The wait sits on the false branch: the flagged passes' kernels still run.
void racy_wait_on_wrong_branch(float* next, const float* cur, float* total, int nx, int passes, int every) {
  cudaStream_t main_s, edge_s;
  cudaStreamCreate(&main_s);
  cudaStreamCreate(&edge_s);
  cudaEvent_t reset_done;
  cudaEventCreate(&reset_done);
  for (int p = 0; p < passes; ++p) {
    cudaMemsetAsync(total, 0, sizeof(float), main_s);  // expected-warning:5{{cross-stream-race}}{{writes `total`}}
    cudaEventRecord(reset_done, main_s);
    const bool with_total = p % every == 0;
    cudaStreamWaitEvent(edge_s, reset_done, 0);
    relax_rows<<<dim3(nx / 32, 1), dim3(32, 1), 0, edge_s>>>(next, cur, total, 0, 1, nx, with_total);
    if (!with_total) cudaStreamSynchronize(edge_s);
  }
}

// The flag is written after the launch: its test no longer says what the
// launch was given.
void racy_flag_written_after_launch(float* next, const float* cur, float* total, int nx, bool with_total) {
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  relax_rows<<<dim3(nx / 32, 1), dim3(32, 1), 0, a>>>(next, cur, total, 0, 1, nx, with_total);
  with_total = !with_total;
  if (with_total) cudaStreamSynchronize(a);
  cudaMemsetAsync(total, 0, sizeof(float), b);  // expected-warning:3{{cross-stream-race}}{{writes `total`}}
}
