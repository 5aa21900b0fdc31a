// A stream chosen by a condition the lint can decide (`wait_other ? other :
// producer`, with the flag a constant or a helper's bound argument) is the
// stream chosen: synchronizing the producer orders the host after its kernel
// (fixed), synchronizing the other stream does not (racy).
#include <cuda_runtime.h>

__global__ void fill(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1;
}

static float read_after(float* pinned, int n, bool wait_other) {
  cudaStream_t producer, other;
  cudaStreamCreateWithFlags(&producer, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking);
  fill<<<(n + 255) / 256, 256, 0, producer>>>(pinned, n);
  cudaStreamSynchronize(wait_other ? other : producer);
  return pinned[0];  // expected-warning:10{{host-device-race}}{{kernel `fill` on stream `producer` (non-blocking)}}
}

float racy(float* pinned, int n) { return read_after(pinned, n, true); }
float fixed(float* pinned, int n) { return read_after(pinned, n, false); }

float fixed_constant(float* pinned, int n) {
  constexpr bool kWaitOther = false;
  cudaStream_t producer, other;
  cudaStreamCreateWithFlags(&producer, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking);
  fill<<<(n + 255) / 256, 256, 0, producer>>>(pinned, n);
  cudaStreamSynchronize(kWaitOther ? other : producer);
  return pinned[0];
}
