// A class owning its streams and buffers: the constructor creates a copy
// stream and a compute stream, methods enqueue on them, and a method reads
// the pinned result. Called from one function, the methods are followed with
// `this` bound to the object, so the missing waits are found at the calls:
// the kernel and the download race with the upload still reading the host copy.
#include <cuda_runtime.h>

__global__ void scale(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2; }

class Pipeline {
 public:
  explicit Pipeline(int n) : n_(n) {
    cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&uploaded_, cudaEventDisableTiming);
    cudaMalloc(&device_, n * sizeof(float));
    cudaMallocHost(&host_, n * sizeof(float));
  }
  void Upload() {
    cudaMemcpyAsync(device_, host_, n_ * sizeof(float), cudaMemcpyHostToDevice, copy_);
    cudaEventRecord(uploaded_, copy_);
  }
  void ComputeUnordered() { scale<<<(n_ + 255) / 256, 256, 0, compute_>>>(device_, n_); }
  void ComputeAfterUpload() {
    cudaStreamWaitEvent(compute_, uploaded_, 0);
    scale<<<(n_ + 255) / 256, 256, 0, compute_>>>(device_, n_);
  }
  void Download() { cudaMemcpyAsync(host_, device_, n_ * sizeof(float), cudaMemcpyDeviceToHost, compute_); }
  float First() const { return host_[0]; }
  void Wait() { cudaStreamSynchronize(compute_); }

 private:
  int n_;
  cudaStream_t copy_, compute_;
  cudaEvent_t uploaded_;
  float* device_;
  float* host_;
};

float racy() {
  Pipeline p(1 << 20);
  p.Upload();
  p.ComputeUnordered();  // expected-warning:3{{cross-stream-race}}
  p.Download();  // expected-warning:3{{cross-stream-race}}
  return p.First();  // expected-warning:10{{host-device-race}}
}

float fixed() {
  Pipeline p(1 << 20);
  p.Upload();
  p.ComputeAfterUpload();
  p.Download();
  p.Wait();
  return p.First();
}
