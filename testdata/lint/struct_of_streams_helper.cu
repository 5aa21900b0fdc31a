// A plain struct bundling the streams of a pipeline, passed by pointer to the
// helpers that enqueue on them: `st->compute` in a helper is the caller's
// `streams.compute`, so the upload/compute race is found at the helper call.
#include <cuda_runtime.h>

struct Streams {
  cudaStream_t upload;
  cudaStream_t compute;
  cudaEvent_t uploaded;
};

__global__ void scale(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2; }

static void create(Streams* st) {
  cudaStreamCreateWithFlags(&st->upload, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&st->compute, cudaStreamNonBlocking);
  cudaEventCreateWithFlags(&st->uploaded, cudaEventDisableTiming);
}
static void upload(Streams* st, float* d, const float* h, int n) {
  cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, st->upload);
  cudaEventRecord(st->uploaded, st->upload);
}
static void compute(Streams* st, float* d, int n, bool wait) {
  if (wait) cudaStreamWaitEvent(st->compute, st->uploaded, 0);
  scale<<<(n + 255) / 256, 256, 0, st->compute>>>(d, n);
}

void racy(float* d, const float* h, int n) {
  Streams streams;
  create(&streams);
  upload(&streams, d, h, n);
  compute(&streams, d, n, false);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
}

void fixed(float* d, const float* h, int n) {
  Streams streams;
  create(&streams);
  upload(&streams, d, h, n);
  compute(&streams, d, n, true);
  cudaDeviceSynchronize();
}
