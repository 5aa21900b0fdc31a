// Fork-join over an array of worker streams: each records an event when its
// slice is done, and the main stream waits on every event (in a loop) before
// reducing the whole buffer. Missing the waits races with every worker.
#include <cuda_runtime.h>

__global__ void fill(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void reduce(const float* in, float* total, int n) { int i = threadIdx.x; if (i < n) atomicAdd(total, in[i]); }

void racy(float* d, float* total, int n) {
  const int kWorkers = 4;
  cudaStream_t main_stream, workers[kWorkers];
  cudaEvent_t done[kWorkers];
  cudaStreamCreateWithFlags(&main_stream, cudaStreamNonBlocking);
  for (int w = 0; w < kWorkers; ++w) {
    cudaStreamCreateWithFlags(&workers[w], cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&done[w], cudaEventDisableTiming);
  }
  const int slice = n / kWorkers;
  for (int w = 0; w < kWorkers; ++w) {
    fill<<<slice / 256, 256, 0, workers[w]>>>(d + w * slice, slice);
    cudaEventRecord(done[w], workers[w]);
  }
  reduce<<<1, 256, 0, main_stream>>>(d, total, n);  // expected-warning:3{{cross-stream-race}}
  cudaStreamSynchronize(main_stream);
}

void fixed(float* d, float* total, int n) {
  const int kWorkers = 4;
  cudaStream_t main_stream, workers[kWorkers];
  cudaEvent_t done[kWorkers];
  cudaStreamCreateWithFlags(&main_stream, cudaStreamNonBlocking);
  for (int w = 0; w < kWorkers; ++w) {
    cudaStreamCreateWithFlags(&workers[w], cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&done[w], cudaEventDisableTiming);
  }
  const int slice = n / kWorkers;
  for (int w = 0; w < kWorkers; ++w) {
    fill<<<slice / 256, 256, 0, workers[w]>>>(d + w * slice, slice);
    cudaEventRecord(done[w], workers[w]);
  }
  for (int w = 0; w < kWorkers; ++w) cudaStreamWaitEvent(main_stream, done[w], 0);
  reduce<<<1, 256, 0, main_stream>>>(d, total, n);
  cudaStreamSynchronize(main_stream);
}
