// cuBLASLt takes the stream in each call: cublasLtMatmul on `compute` reads
// A and B and writes D. Bias `C` is produced by a kernel on `prep`, not
// ordered before the matmul (racy); an event orders it (fixed).
#include <cublasLt.h>
#include <cuda_runtime.h>

__global__ void fill_bias(float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = 1.0f;
}

void racy(cublasLtHandle_t lt, cublasLtMatmulDesc_t op, cublasLtMatrixLayout_t layout, const float* A,
          const float* B, float* C, float* D, void* workspace, size_t workspace_bytes, int n) {
  cudaStream_t prep, compute;
  cudaStreamCreate(&prep);
  cudaStreamCreate(&compute);
  fill_bias<<<(n + 255) / 256, 256, 0, prep>>>(C, n);
  const float alpha = 1.0f, beta = 1.0f;
  cublasLtMatmul(lt, op, &alpha, A, layout, B, layout, &beta, C, layout, D, layout, nullptr, workspace,  // expected-warning:3{{cross-stream-race}}{{`cublasLtMatmul` on stream `compute` reads `C` while kernel `fill_bias` on stream `prep` may still write it}}
                 workspace_bytes, compute);
  cudaStreamSynchronize(compute);
}

void fixed(cublasLtHandle_t lt, cublasLtMatmulDesc_t op, cublasLtMatrixLayout_t layout, const float* A,
           const float* B, float* C, float* D, void* workspace, size_t workspace_bytes, int n) {
  cudaStream_t prep, compute;
  cudaEvent_t ready;
  cudaStreamCreate(&prep);
  cudaStreamCreate(&compute);
  cudaEventCreate(&ready);
  fill_bias<<<(n + 255) / 256, 256, 0, prep>>>(C, n);
  cudaEventRecord(ready, prep);
  cudaStreamWaitEvent(compute, ready, 0);
  const float alpha = 1.0f, beta = 1.0f;
  cublasLtMatmul(lt, op, &alpha, A, layout, B, layout, &beta, C, layout, D, layout, nullptr, workspace,
                 workspace_bytes, compute);
  cudaStreamSynchronize(compute);
}
