// A templated device buffer class with asynchronous upload and download on a
// caller's stream, and a host mirror: reading the mirror right after the
// download races; synchronizing the stream through the class fixes it.
#include <cuda_runtime.h>
#include <cstddef>

template <typename T>
class MirroredBuffer {
 public:
  explicit MirroredBuffer(size_t n) : n_(n) {
    cudaMalloc(&device_, n * sizeof(T));
    cudaMallocHost(&host_, n * sizeof(T));
  }
  void Upload(cudaStream_t s) { cudaMemcpyAsync(device_, host_, n_ * sizeof(T), cudaMemcpyHostToDevice, s); }
  void Download(cudaStream_t s) { cudaMemcpyAsync(host_, device_, n_ * sizeof(T), cudaMemcpyDeviceToHost, s); }
  T* device() const { return device_; }
  T& at(size_t i) { return host_[i]; }
  T* host() const { return host_; }

 private:
  size_t n_;
  T* device_;
  T* host_;
};

template <typename T>
__global__ void negate(T* x, size_t n) { size_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = -x[i]; }

double racy(cudaStream_t s) {
  MirroredBuffer<double> buf(1024);
  buf.Upload(s);
  negate<double><<<4, 256, 0, s>>>(buf.device(), 1024);
  buf.Download(s);
  return buf.host()[0];  // expected-warning:10{{host-device-race}}
}

double fixed(cudaStream_t s) {
  MirroredBuffer<double> buf(1024);
  buf.Upload(s);
  negate<double><<<4, 256, 0, s>>>(buf.device(), 1024);
  buf.Download(s);
  cudaStreamSynchronize(s);
  return buf.host()[0];
}
