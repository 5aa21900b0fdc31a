// The helpers main.cu calls (see launchers.h), and a race of this file's own.
#include "launchers.h"

#include <cstdlib>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }

void launch_produce(float* d, int n, cudaStream_t s) { produce<<<(n + 255) / 256, 256, 0, s>>>(d, n); }

void copy_back(float* h, const float* d, int n, cudaStream_t s) {
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
}

__global__ void relax_row_range(float* out, const float* in, float* sum, int first, int last, int nx) {
  const int iy = blockIdx.y * blockDim.y + threadIdx.y + first;
  const int ix = blockIdx.x * blockDim.x + threadIdx.x;
  if (iy < last && ix < nx) {
    const float v = 0.5f * (in[iy * nx + ix] + in[(iy + 1) * nx + ix]);
    out[iy * nx + ix] = v;
    atomicAdd(sum, v * v);
  }
}

void launch_rows(float* out, const float* in, float* sum, int first, int last, int nx, cudaStream_t s) {
  relax_row_range<<<dim3(nx / 32, last - first), dim3(32, 1), 0, s>>>(out, in, sum, first, last, nx);
}

void finish(cudaStream_t s) {
  if (cudaStreamSynchronize(s) != cudaSuccess) cudaGetLastError();
}

void produce_and_wait(float* d, int n, cudaStream_t s) {
  launch_produce(d, n, s);
  finish(s);
}

float racy_here(float* d, float* h, int n) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  launch_produce(d, n, s);
  copy_back(h, d, n, s);
  return h[0];  // expected-warning:10{{host-device-race}}
}

float fixed_here(float* d, float* h, int n) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  launch_produce(d, n, s);
  copy_back(h, d, n, s);
  finish(s);
  return h[0];
}

int device_of(const void* p) {
  cudaPointerAttributes att;
  if (cudaPointerGetAttributes(&att, p) != cudaSuccess) return -1;
  return att.type == cudaMemoryTypeDevice ? att.device : -1;
}

cudaStream_t g_results_stream;

void fetch_results(float* dst, const float* src, int n) {
  int dev = device_of(dst);
  if (dev == -1) {
    cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToHost, g_results_stream);
    cudaStreamSynchronize(g_results_stream);
  } else {
    cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice, g_results_stream);
  }
}

void record_on(cudaEvent_t ev, cudaStream_t s) { cudaEventRecord(ev, s); }
void wait_on(cudaEvent_t ev, cudaStream_t s) { cudaStreamWaitEvent(s, ev, 0); }

void push_to(float* d, const float* h, int n, cudaStream_t s) {
  cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s);
}

cudaStream_t shared_stream() {
  static cudaStream_t stream = nullptr;
  if (stream == nullptr) cudaStreamCreate(&stream);
  return stream;
}

void push_on_shared(float* d, const float* h, int n) {
  cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, shared_stream());
}

void pull_on_shared(float* h, const float* d, int n) {
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, shared_stream());
  cudaStreamSynchronize(shared_stream());
}

float* host_floats(int n) {
  float* p = static_cast<float*>(calloc(n, sizeof(float)));
  if (p == nullptr) abort();
  return p;
}

float* pinned_floats(int n) {
  float* p = nullptr;
  cudaMallocHost(&p, n * sizeof(float));
  return p;
}
