// Host code calling min/max on ints, sizes and floats, as nvcc allows (its
// headers declare them __host__ __device__; clang's make them device-only).
// The file parses, and the race after the calls is found; its fixed twin is silent.
#include <cuda_runtime.h>
#include <cstddef>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }

static int BlocksFor(int n, int cores) {
  const float scale = max(32.0f / (float)cores, 1.0f);
  return max(1, (int)((float)n / scale) / 256) + (int)min(sizeof(float), (size_t)4) + (int)umin(1u, 2u);
}

void racy(float* a, float* b, int n) {
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  produce<<<BlocksFor(n, 64), 256, 0, s1>>>(a, n);
  consume<<<max(n / 256, 1), 256, 0, s2>>>(a, b, n);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
}

void fixed(float* a, float* b, int n) {
  cudaStream_t s1, s2;
  cudaEvent_t done;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  cudaEventCreate(&done);
  produce<<<BlocksFor(n, 64), 256, 0, s1>>>(a, n);
  cudaEventRecord(done, s1);
  cudaStreamWaitEvent(s2, done, 0);
  consume<<<max(n / 256, 1), 256, 0, s2>>>(a, b, n);
  cudaDeviceSynchronize();
}
