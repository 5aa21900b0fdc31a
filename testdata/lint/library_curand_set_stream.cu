// cuRAND: curandSetStream binds the generator; curandGenerateUniform writes
// its output on that stream. A kernel on another stream consumes the numbers
// unordered (racy), or after an event (fixed).
#include <cuda_runtime.h>
#include <curand.h>

__global__ void consume(const float* r, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = r[i] * 2;
}

void racy(float* numbers, float* out, int n) {
  curandGenerator_t gen;
  cudaStream_t rng, work;
  cudaStreamCreate(&rng);
  cudaStreamCreate(&work);
  curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);
  curandSetPseudoRandomGeneratorSeed(gen, 1234ULL);
  curandSetStream(gen, rng);
  curandGenerateUniform(gen, numbers, n);
  consume<<<(n + 255) / 256, 256, 0, work>>>(numbers, out, n);  // expected-warning:3{{cross-stream-race}}{{reads `numbers` while `curandGenerateUniform` on stream `rng` may still write it}}
  cudaDeviceSynchronize();
  curandDestroyGenerator(gen);
}

void fixed(float* numbers, float* out, int n) {
  curandGenerator_t gen;
  cudaStream_t rng, work;
  cudaEvent_t generated;
  cudaStreamCreate(&rng);
  cudaStreamCreate(&work);
  cudaEventCreateWithFlags(&generated, cudaEventDisableTiming);
  curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);
  curandSetStream(gen, rng);
  curandGenerateUniform(gen, numbers, n);
  cudaEventRecord(generated, rng);
  cudaStreamWaitEvent(work, generated, 0);
  consume<<<(n + 255) / 256, 256, 0, work>>>(numbers, out, n);
  cudaDeviceSynchronize();
  curandDestroyGenerator(gen);
}
