// A pitched 2-D copy back into a pinned image: the host reads the first row
// while cudaMemcpy2DAsync may still be writing it; the fixed twin waits on
// an event recorded after the copy.
#include <cuda_runtime.h>

float racy(const float* d_img, size_t pitch, float* h_img, int width, int height, cudaStream_t s) {
  cudaMemcpy2DAsync(h_img, width * sizeof(float), d_img, pitch, width * sizeof(float), height,
                    cudaMemcpyDeviceToHost, s);
  return h_img[0];  // expected-warning:10{{host-device-race}}
}

float fixed(const float* d_img, size_t pitch, float* h_img, int width, int height, cudaStream_t s) {
  cudaEvent_t copied;
  cudaEventCreate(&copied);
  cudaMemcpy2DAsync(h_img, width * sizeof(float), d_img, pitch, width * sizeof(float), height,
                    cudaMemcpyDeviceToHost, s);
  cudaEventRecord(copied, s);
  cudaEventSynchronize(copied);
  return h_img[0];
}
