// cuBLAS: cublasSetStream binds the handle to a stream, and cublasSgemm runs
// there, reading A and B and writing C. The operands are uploaded on another
// stream: nothing orders the GEMM after the uploads (racy), until an event
// does (fixed) or the uploads use the handle's stream (fixed_same_stream).
#include <cublas_v2.h>
#include <cuda_runtime.h>

void racy(const float* hA, const float* hB, float* dA, float* dB, float* dC, int n) {
  cublasHandle_t handle;
  cudaStream_t upload, compute;
  cublasCreate(&handle);
  cudaStreamCreateWithFlags(&upload, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking);
  cublasSetStream(handle, compute);
  cudaMemcpyAsync(dA, hA, n * n * sizeof(float), cudaMemcpyHostToDevice, upload);
  cudaMemcpyAsync(dB, hB, n * n * sizeof(float), cudaMemcpyHostToDevice, upload);
  const float alpha = 1.0f, beta = 0.0f;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, dA, n, dB, n, &beta, dC, n);  // expected-warning:3{{cross-stream-race}}{{read-after-write race: `cublasSgemm` on stream `compute` (non-blocking) reads `dA` while cudaMemcpyAsync on stream `upload` (non-blocking) may still write it}} expected-warning:3{{cross-stream-race}}{{reads `dB`}}
  cudaStreamSynchronize(compute);
  cublasDestroy(handle);
}

void fixed(const float* hA, const float* hB, float* dA, float* dB, float* dC, int n) {
  cublasHandle_t handle;
  cudaStream_t upload, compute;
  cudaEvent_t uploaded;
  cublasCreate(&handle);
  cudaStreamCreateWithFlags(&upload, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking);
  cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming);
  cublasSetStream(handle, compute);
  cudaMemcpyAsync(dA, hA, n * n * sizeof(float), cudaMemcpyHostToDevice, upload);
  cudaMemcpyAsync(dB, hB, n * n * sizeof(float), cudaMemcpyHostToDevice, upload);
  cudaEventRecord(uploaded, upload);
  cudaStreamWaitEvent(compute, uploaded, 0);
  const float alpha = 1.0f, beta = 0.0f;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, dA, n, dB, n, &beta, dC, n);
  cudaStreamSynchronize(compute);
  cublasDestroy(handle);
}

void fixed_same_stream(const float* hA, const float* hB, float* dA, float* dB, float* dC, float* hC, int n) {
  cublasHandle_t handle;
  cudaStream_t stream;
  cublasCreate(&handle);
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  cublasSetStream(handle, stream);
  cudaMemcpyAsync(dA, hA, n * n * sizeof(float), cudaMemcpyHostToDevice, stream);
  cudaMemcpyAsync(dB, hB, n * n * sizeof(float), cudaMemcpyHostToDevice, stream);
  const float alpha = 1.0f, beta = 0.0f;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, dA, n, dB, n, &beta, dC, n);
  cudaMemcpyAsync(hC, dC, n * n * sizeof(float), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  cublasDestroy(handle);
}
