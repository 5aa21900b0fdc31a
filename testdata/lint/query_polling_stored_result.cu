// Polling through a variable that holds the query's result: the loop ends
// only once cudaStreamQuery / cudaEventQuery returned cudaSuccess, which
// orders the host after the work (fixed). Storing the result and going on
// whatever it was orders nothing, and neither does polling another stream
// (racy).
#include <cuda_runtime.h>

__global__ void produce(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

float fixed_do_while(float* d, float* pinned, cudaStream_t s) {
  produce<<<4, 256, 0, s>>>(d, 1024);
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  cudaError_t err;
  do {
    err = cudaStreamQuery(s);
  } while (err == cudaErrorNotReady);
  return pinned[0];
}

float fixed_while_not_success(float* d, float* pinned, cudaStream_t s) {
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  cudaError_t err = cudaErrorNotReady;
  while (err != cudaSuccess) {
    err = cudaStreamQuery(s);
  }
  return pinned[0];
}

float fixed_event_break(float* d, float* pinned, cudaStream_t s, cudaEvent_t copied) {
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  cudaEventRecord(copied, s);
  for (;;) {
    const cudaError_t status = cudaEventQuery(copied);
    if (status == cudaSuccess) break;
  }
  return pinned[0];
}

float racy_stored_once(float* d, float* pinned, cudaStream_t s) {
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  const cudaError_t err = cudaStreamQuery(s);
  (void)err;
  return pinned[0];  // expected-warning:10{{host-device-race}}
}

float racy_other_stream(float* d, float* pinned, cudaStream_t s, cudaStream_t other) {
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  cudaError_t err;
  do {
    err = cudaStreamQuery(other);
  } while (err == cudaErrorNotReady);
  return pinned[0];  // expected-warning:10{{host-device-race}}{{while cudaMemcpyAsync on stream `s` may still write it}}
}
