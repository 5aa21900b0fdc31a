// cuSOLVER: cusolverDnSetStream binds the handle; cusolverDnSgetrf factors A
// in place on that stream and writes the pivots and info. The host reads
// `info` (pinned) after synchronizing the wrong stream (racy), or the right
// one (fixed).
#include <cuda_runtime.h>
#include <cusolverDn.h>

void racy(float* dA, int n, float* work, int* ipiv, int* info_dev) {
  cusolverDnHandle_t solver;
  cudaStream_t s, other;
  int* info;
  cusolverDnCreate(&solver);
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking);
  cudaMallocHost(&info, sizeof(int));
  cusolverDnSetStream(solver, s);
  cusolverDnSgetrf(solver, n, n, dA, n, work, ipiv, info_dev);
  cudaMemcpyAsync(info, info_dev, sizeof(int), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(other);
  if (*info != 0) return;  // expected-warning:7{{host-device-race}}{{the host reads `info` while cudaMemcpyAsync on stream `s` (non-blocking) may still write it}}
}

void fixed(float* dA, int n, float* work, int* ipiv, int* info_dev) {
  cusolverDnHandle_t solver;
  cudaStream_t s;
  int* info;
  cusolverDnCreate(&solver);
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaMallocHost(&info, sizeof(int));
  cusolverDnSetStream(solver, s);
  cusolverDnSgetrf(solver, n, n, dA, n, work, ipiv, info_dev);
  cudaMemcpyAsync(info, info_dev, sizeof(int), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  if (*info != 0) return;
}

// The factorization on the solver's stream against a kernel still reading A
// on another: a write-after-read race.
__global__ void norm(const float* a, float* out, int n) {
  if (threadIdx.x == 0) out[0] = a[0] * n;
}

void racy_overwrite(float* dA, float* dnorm, int n, float* work, int* ipiv, int* info_dev) {
  cusolverDnHandle_t solver;
  cudaStream_t s, measure;
  cusolverDnCreate(&solver);
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&measure, cudaStreamNonBlocking);
  cusolverDnSetStream(solver, s);
  norm<<<1, 32, 0, measure>>>(dA, dnorm, n);
  cusolverDnSgetrf(solver, n, n, dA, n, work, ipiv, info_dev);  // expected-warning:3{{cross-stream-race}}{{write-after-read race: `cusolverDnSgetrf` on stream `s` (non-blocking) writes `dA`}}
  cudaDeviceSynchronize();
}
