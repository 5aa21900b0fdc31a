// A device-to-device copy on a copy stream snapshots a buffer a kernel on the
// compute stream is still writing; recording an event after the kernel and
// making the copy stream wait for it orders the snapshot.
#include <cuda_runtime.h>

__global__ void update(float* state, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) state[i] += 1; }

void racy(float* state, float* snapshot, int n) {
  cudaStream_t compute, copy;
  cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking);
  update<<<(n + 255) / 256, 256, 0, compute>>>(state, n);
  cudaMemcpyAsync(snapshot, state, n * sizeof(float), cudaMemcpyDeviceToDevice, copy);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
}

void fixed(float* state, float* snapshot, int n) {
  cudaStream_t compute, copy;
  cudaEvent_t updated;
  cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking);
  cudaEventCreateWithFlags(&updated, cudaEventDisableTiming);
  update<<<(n + 255) / 256, 256, 0, compute>>>(state, n);
  cudaEventRecord(updated, compute);
  cudaStreamWaitEvent(copy, updated, 0);
  cudaMemcpyAsync(snapshot, state, n * sizeof(float), cudaMemcpyDeviceToDevice, copy);
  cudaDeviceSynchronize();
}
