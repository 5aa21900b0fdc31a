// The host sweeps a buffer an asynchronous copy may still be writing (or
// reading): an indexed loop, nested loops, a pointer walk, a range-for and
// standard algorithms all touch its first element on their first step. Each
// racy sweep has a fixed twin that synchronizes first.
#include <cuda_runtime.h>
#include <algorithm>
#include <numeric>

float racy_indexed(const float* d, float* h, int n, cudaStream_t s) {
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  float total = 0;
  for (int i = 0; i < n; ++i) total += h[i];  // expected-warning:40{{host-device-race}}
  return total;
}
float fixed_indexed(const float* d, float* h, int n, cudaStream_t s) {
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  float total = 0;
  for (int i = 0; i < n; ++i) total += h[i];
  return total;
}

void racy_nested_write(float* d, float* h, int rows, int cols, cudaStream_t s) {
  cudaMemcpyAsync(d, h, rows * cols * sizeof(float), cudaMemcpyHostToDevice, s);
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) h[r * cols + c] = 0;  // expected-warning:36{{host-device-race}}
}
void fixed_nested_write(float* d, float* h, int rows, int cols, cudaStream_t s) {
  cudaMemcpyAsync(d, h, rows * cols * sizeof(float), cudaMemcpyHostToDevice, s);
  cudaStreamSynchronize(s);
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) h[r * cols + c] = 0;
}

float racy_pointer_walk(const float* d, float* h, int n, cudaStream_t s) {
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  float total = 0;
  const float* end = h + n;
  for (const float* p = h; p < end;) total += *p++;  // expected-warning:47{{host-device-race}}
  return total;
}
float fixed_pointer_walk(const float* d, float* h, int n, cudaStream_t s) {
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  float total = 0;
  const float* end = h + n;
  for (const float* p = h; p < end;) total += *p++;
  return total;
}

float racy_range_for(const float* d, float (&h)[256], cudaStream_t s) {
  cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, s);
  float total = 0;
  for (float x : h) total += x;  // expected-warning:16{{host-device-race}}
  return total;
}
float fixed_range_for(const float* d, float (&h)[256], cudaStream_t s) {
  cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  float total = 0;
  for (float x : h) total += x;
  return total;
}

float racy_algorithms(float* d, float* h, float* out, int n, cudaStream_t s) {
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaMemcpyAsync(d, out, n * sizeof(float), cudaMemcpyHostToDevice, s);
  const float total = std::accumulate(h, h + n, 0.0f);  // expected-warning:23{{host-device-race}}
  std::fill(out, out + n, 0.0f);  // expected-warning:3{{host-device-race}}
  return total;
}
float fixed_algorithms(float* d, float* h, float* out, int n, cudaStream_t s) {
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaMemcpyAsync(d, out, n * sizeof(float), cudaMemcpyHostToDevice, s);
  cudaStreamSynchronize(s);
  const float total = std::accumulate(h, h + n, 0.0f);
  std::fill(out, out + n, 0.0f);
  return total;
}
