// A helper with an optional out-parameter (`cudaEvent_t* done = NULL`): at a
// call that passes `&ev` its `if (done != NULL)` branch is taken, at a call
// that passes nothing it is not. The fixed twin's wait orders the consumer;
// the racy twin's event is never recorded, so its wait orders nothing.
#include <cuda_runtime.h>
#include <cstddef>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }

static void launch_produce(float* a, cudaStream_t s, cudaEvent_t* done = NULL) {
  produce<<<4, 256, 0, s>>>(a, 1024);
  if (done != NULL) cudaEventRecord(*done, s);
}

void fixed(float* a, float* b) {
  cudaStream_t s1, s2;
  cudaEvent_t ev;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  cudaEventCreate(&ev);
  launch_produce(a, s1, &ev);
  cudaStreamWaitEvent(s2, ev, 0);
  consume<<<4, 256, 0, s2>>>(a, b, 1024);
  cudaDeviceSynchronize();
}

void racy(float* a, float* b) {
  cudaStream_t s1, s2;
  cudaEvent_t ev;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  cudaEventCreate(&ev);
  launch_produce(a, s1);
  cudaStreamWaitEvent(s2, ev, 0);  // expected-warning:3{{wait-on-unrecorded-event}}
  consume<<<4, 256, 0, s2>>>(a, b, 1024);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
}
