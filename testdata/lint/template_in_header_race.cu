// A function template and a class template of a header, instantiated here:
// their copies are followed like any helper's. The upload on `s2` writes
// what the kernel on `s1` reads (racy); a synchronize orders them (fixed).
#include <vector>

#include "include/device_buffer.cuh"

void racy(int n) {
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  DeviceBuffer<float> in(n), out(n);
  float* staging;
  cudaMallocHost(&staging, n * sizeof(float));
  header_scale<<<(n + 255) / 256, 256, 0, s1>>>(in.data(), out.data(), n);
  upload(in.data(), staging, n, s2);  // expected-warning:3{{cross-stream-race}}{{write-after-read race: cudaMemcpyAsync on stream `s2` (non-blocking) writes}}
  out.copy_to(staging, s2);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
}

void fixed(int n) {
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  DeviceBuffer<float> in(n), out(n);
  float* staging;
  cudaMallocHost(&staging, n * sizeof(float));
  header_scale<<<(n + 255) / 256, 256, 0, s1>>>(in.data(), out.data(), n);
  cudaStreamSynchronize(s1);
  upload(in.data(), staging, n, s2);
  out.copy_to(staging, s2);
  cudaDeviceSynchronize();
}
