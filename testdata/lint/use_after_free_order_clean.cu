// Frees ordered after every use, and memory used only while it is live:
// cudaFree after the last kernel (cudaFree synchronizes the device), a
// stream-ordered free after the work on its stream, and a buffer allocated
// again after a free. Silent (use_after_free.cu is the racy twin).
#include <cuda_runtime.h>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }

void fixed(float* out, int n) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  float* a;
  cudaMalloc(&a, n * sizeof(float));
  produce<<<(n + 255) / 256, 256, 0, s>>>(a, n);
  consume<<<(n + 255) / 256, 256, 0, s>>>(a, out, n);
  cudaFree(a);
  float* b;
  cudaMallocAsync(&b, n * sizeof(float), s);
  produce<<<(n + 255) / 256, 256, 0, s>>>(b, n);
  cudaFreeAsync(b, s);
  cudaMallocAsync(&b, n * sizeof(float), s);
  consume<<<(n + 255) / 256, 256, 0, s>>>(b, out, n);
  cudaFreeAsync(b, s);
  cudaStreamSynchronize(s);
}
