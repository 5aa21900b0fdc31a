// Chunks handed round-robin to an array of streams, each chunk's copy and
// kernel on one stream (disjoint, silent); a final kernel on a stream of its
// own reads the whole buffer and must wait for all of them.
#include <cuda_runtime.h>

__global__ void scale(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2; }
__global__ void reduce(const float* in, float* total, int n) { int i = threadIdx.x; if (i < n) atomicAdd(total, in[i]); }

void racy(float* d, const float* h, float* total, int chunks, int chunk) {
  cudaStream_t streams[3], last;
  for (int i = 0; i < 3; ++i) cudaStreamCreate(&streams[i]);
  cudaStreamCreate(&last);
  for (int c = 0; c < chunks; ++c) {
    cudaStream_t s = streams[c % 3];
    cudaMemcpyAsync(d + c * chunk, h + c * chunk, chunk * sizeof(float), cudaMemcpyHostToDevice, s);
    scale<<<chunk / 256, 256, 0, s>>>(d + c * chunk, chunk);
  }
  reduce<<<1, 256, 0, last>>>(d, total, chunks * chunk);  // expected-warning:3{{cross-stream-race}} expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
}

void fixed(float* d, const float* h, float* total, int chunks, int chunk) {
  cudaStream_t streams[3], last;
  cudaEvent_t done[3];
  for (int i = 0; i < 3; ++i) {
    cudaStreamCreate(&streams[i]);
    cudaEventCreate(&done[i]);
  }
  cudaStreamCreate(&last);
  for (int c = 0; c < chunks; ++c) {
    cudaStream_t s = streams[c % 3];
    cudaMemcpyAsync(d + c * chunk, h + c * chunk, chunk * sizeof(float), cudaMemcpyHostToDevice, s);
    scale<<<chunk / 256, 256, 0, s>>>(d + c * chunk, chunk);
  }
  for (int i = 0; i < 3; ++i) {
    cudaEventRecord(done[i], streams[i]);
    cudaStreamWaitEvent(last, done[i], 0);
  }
  reduce<<<1, 256, 0, last>>>(d, total, chunks * chunk);
  cudaDeviceSynchronize();
}
