// cuFFT's multi-GPU descriptor (cudaLibXtDesc) is a host structure that
// cufftXtMalloc fills in before it returns: the host reading which GPU holds
// which part (`desc->descriptor->GPUs[i]`, `->data[i]`) races with nothing
// the transforms do on the buffers it lists (fixed; CUDALibrarySamples'
// 3d_mgpu_r2c_c2r). The buffers themselves are still followed (racy).
#include <cuda_runtime.h>
#include <cufftXt.h>

size_t fixed_read_layout(cufftHandle plan, const float* host_in, int* gpus_out) {
  cudaLibXtDesc* desc = nullptr;
  cufftXtMalloc(plan, &desc, CUFFT_XT_FORMAT_INPLACE);
  cufftXtMemcpy(plan, (void*)desc, (void*)host_in, CUFFT_COPY_HOST_TO_DEVICE);
  cufftXtExecDescriptor(plan, desc, desc, CUFFT_FORWARD);
  size_t total = 0;
  for (int i = 0; i < desc->descriptor->nGPUs; ++i) {
    gpus_out[i] = desc->descriptor->GPUs[i];
    total += desc->descriptor->size[i];
  }
  cufftXtFree(desc);
  return total;
}

float racy_result_on_other_stream(cufftHandle plan, cufftComplex* d_in, cufftComplex* d_out, float* pinned) {
  cudaStream_t work, copy;
  cudaStreamCreate(&work);
  cudaStreamCreate(&copy);
  cufftSetStream(plan, work);
  cufftExecC2C(plan, d_in, d_out, CUFFT_FORWARD);
  cudaMemcpyAsync(pinned, d_out, 64, cudaMemcpyDeviceToHost, copy);  // expected-warning:3{{cross-stream-race}}
  cudaStreamSynchronize(copy);
  return pinned[0];
}
