// Pointers computed into one pinned buffer (a header and a payload at fixed
// offsets, and a slot helper): a read of the slot the copy writes races, a
// read of a slot the copy does not touch does not.
#include <cuda_runtime.h>

static float* slot(float* base, int k) { return base + k * 256; }

float racy(const float* d, float* h, cudaStream_t s) {
  cudaMemcpyAsync(slot(h, 1), d, 256 * sizeof(float), cudaMemcpyDeviceToHost, s);
  float* payload = h + 256;
  return payload[0];  // expected-warning:10{{host-device-race}}
}

float fixed(const float* d, float* h, cudaStream_t s) {
  cudaMemcpyAsync(slot(h, 1), d, 256 * sizeof(float), cudaMemcpyDeviceToHost, s);
  float* header = h;
  float* spare = slot(h, 2);
  return header[0] + spare[0];
}
