// cudaLaunchHostFunc queues a host callback in stream order, often used to
// signal completion: enqueueing it does not make the calling thread wait, so
// reading the buffer right after still races; synchronizing does not.
#include <cuda_runtime.h>

static void CUDART_CB on_done(void* flag) { *static_cast<volatile int*>(flag) = 1; }

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }

float racy(float* d, float* h, int n, cudaStream_t s, int* flag) {
  produce<<<4, 256, 0, s>>>(d, n);
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaLaunchHostFunc(s, on_done, flag);
  return h[0];  // expected-warning:10{{host-device-race}}
}

float fixed(float* d, float* h, int n, cudaStream_t s, int* flag) {
  produce<<<4, 256, 0, s>>>(d, n);
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaLaunchHostFunc(s, on_done, flag);
  cudaStreamSynchronize(s);
  return h[0];
}
