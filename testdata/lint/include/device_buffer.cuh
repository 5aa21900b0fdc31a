// Helpers of the kind projects keep in a header: a launcher, a download into
// host memory, a typed upload template and a buffer class template. Included
// by helper_in_header_*.cu and template_in_header_*.cu.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>

__global__ void header_fill(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}
__global__ void header_scale(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

inline void launch_fill(float* buf, int n, cudaStream_t stream) { header_fill<<<(n + 255) / 256, 256, 0, stream>>>(buf, n); }

inline void download(float* host, const float* dev, int n, cudaStream_t stream) {
  cudaMemcpyAsync(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost, stream);
}

template <typename T>
void upload(T* dev, const T* host, size_t count, cudaStream_t stream) {
  cudaMemcpyAsync(dev, host, count * sizeof(T), cudaMemcpyHostToDevice, stream);
}

template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t n) : n_(n) { cudaMalloc(&data_, n * sizeof(T)); }
  T* data() const { return data_; }
  void copy_from(const T* host, cudaStream_t stream) {
    cudaMemcpyAsync(data_, host, n_ * sizeof(T), cudaMemcpyHostToDevice, stream);
  }
  void copy_to(T* host, cudaStream_t stream) const {
    cudaMemcpyAsync(host, data_, n_ * sizeof(T), cudaMemcpyDeviceToHost, stream);
  }

 private:
  T* data_ = nullptr;
  size_t n_;
};
