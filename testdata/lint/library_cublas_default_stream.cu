// A cuBLAS handle no stream was bound to runs on the legacy default stream,
// which does not wait for a non-blocking stream: the GEMM reads `dA` while
// the upload on the non-blocking stream may still write it (racy), unless the
// handle is bound to the upload's stream (fixed). The copy of the result
// back into pinned memory on `s` needs the host to synchronize `s` before
// reading it.
#include <cublas_v2.h>
#include <cuda_runtime.h>

void racy(const float* hA, float* dA, float* dC, float* hC, int n) {
  cublasHandle_t handle;
  cudaStream_t s;
  cublasCreate(&handle);
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaMemcpyAsync(dA, hA, n * sizeof(float), cudaMemcpyHostToDevice, s);
  const float alpha = 2.0f;
  cublasSaxpy(handle, n, &alpha, dA, 1, dC, 1);  // expected-warning:3{{nonblocking-legacy-order}}{{`cublasSaxpy` on the legacy default stream reads `dA`}}
  cudaDeviceSynchronize();
  cudaMemcpyAsync(hC, dC, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  const float first = hC[0];  // expected-warning:23{{host-device-race}}
  (void)first;
}

void fixed(const float* hA, float* dA, float* dC, float* hC, int n) {
  cublasHandle_t handle;
  cudaStream_t s;
  cublasCreate(&handle);
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cublasSetStream(handle, s);
  cudaMemcpyAsync(dA, hA, n * sizeof(float), cudaMemcpyHostToDevice, s);
  const float alpha = 2.0f;
  cublasSaxpy(handle, n, &alpha, dA, 1, dC, 1);
  cudaMemcpyAsync(hC, dC, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  const float first = hC[0];
  (void)first;
}
