// cuSPARSE: descriptors stand for the buffers they were created with, and
// cusparseSpMV on the handle's stream reads matA and vecX (const
// descriptors) and writes vecY. `y` is still being read by a copy back on
// another stream when the SpMV overwrites it (racy); synchronizing the copy's
// stream first orders them (fixed).
#include <cuda_runtime.h>
#include <cusparse.h>

void racy(int rows, int cols, int nnz, int* offsets, int* columns, float* values, float* x, float* y, float* y_prev,
          void* buffer) {
  cusparseHandle_t handle;
  cudaStream_t solve, save;
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t vx, vy;
  cusparseCreate(&handle);
  cudaStreamCreateWithFlags(&solve, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&save, cudaStreamNonBlocking);
  cusparseSetStream(handle, solve);
  cusparseCreateCsr(&A, rows, cols, nnz, offsets, columns, values, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
  cusparseCreateDnVec(&vx, cols, x, CUDA_R_32F);
  cusparseCreateDnVec(&vy, rows, y, CUDA_R_32F);
  cudaMemcpyAsync(y_prev, y, rows * sizeof(float), cudaMemcpyDeviceToDevice, save);
  const float alpha = 1.0f, beta = 0.0f;
  cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, vx, &beta, vy, CUDA_R_32F,  // expected-warning:3{{cross-stream-race}}{{write-after-read race: `cusparseSpMV` on stream `solve` (non-blocking) writes `y` while cudaMemcpyAsync on stream `save` (non-blocking) may still read it}}
               CUSPARSE_SPMV_ALG_DEFAULT, buffer);
  cudaDeviceSynchronize();
}

void fixed(int rows, int cols, int nnz, int* offsets, int* columns, float* values, float* x, float* y, float* y_prev,
           void* buffer) {
  cusparseHandle_t handle;
  cudaStream_t solve, save;
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t vx, vy;
  cusparseCreate(&handle);
  cudaStreamCreateWithFlags(&solve, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&save, cudaStreamNonBlocking);
  cusparseSetStream(handle, solve);
  cusparseCreateCsr(&A, rows, cols, nnz, offsets, columns, values, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
  cusparseCreateDnVec(&vx, cols, x, CUDA_R_32F);
  cusparseCreateDnVec(&vy, rows, y, CUDA_R_32F);
  cudaMemcpyAsync(y_prev, y, rows * sizeof(float), cudaMemcpyDeviceToDevice, save);
  cudaStreamSynchronize(save);
  const float alpha = 1.0f, beta = 0.0f;
  cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, vx, &beta, vy, CUDA_R_32F,
               CUSPARSE_SPMV_ALG_DEFAULT, buffer);
  cudaDeviceSynchronize();
}
