// A helper (in a header) whose code does not compile cannot be followed where
// it is called: whether it synchronizes is unknown, so the host read after it
// is not judged, the helper is named on stderr ("its calls are not followed
// ...") and the exit status says the analysis is incomplete
// (expected-incomplete). The race before the call is still reported.
#include "include/broken_helper.cuh"

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }

float reads_after_helper(float* d, float* pinned, cudaStream_t s) {
  produce<<<4, 256, 0, s>>>(d, 1024);
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  const float early = pinned[0];  // expected-warning:23{{host-device-race}}
  wait_and_log(s);
  return early + pinned[1];
}
