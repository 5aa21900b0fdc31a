// cuRAND's host generator (curandCreateGeneratorHost) generates on the host,
// into host memory, before curandGenerate* returns, whatever stream it is
// given: its output is no pending work (fixed). A device generator on a
// stream writes its output there, and a host read before a synchronize races
// with it (racy).
#include <cuda_runtime.h>
#include <curand.h>

float fixed_host_generator(float* pinned, int n, cudaStream_t s) {
  curandGenerator_t gen;
  curandCreateGeneratorHost(&gen, CURAND_RNG_PSEUDO_DEFAULT);
  curandSetStream(gen, s);
  curandGenerateUniform(gen, pinned, n);
  const float first = pinned[0];
  curandDestroyGenerator(gen);
  return first;
}

float racy_device_generator(float* managed, int n, cudaStream_t s) {
  curandGenerator_t gen;
  curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);
  curandSetStream(gen, s);
  curandGenerateUniform(gen, managed, n);
  const float first = managed[0];  // expected-warning:23{{host-device-race}}
  curandDestroyGenerator(gen);
  return first;
}

// A handle made by the host generator and then remade as a device one is the
// device one's.
float racy_remade_generator(float* managed, int n, cudaStream_t s) {
  curandGenerator_t gen;
  curandCreateGeneratorHost(&gen, CURAND_RNG_PSEUDO_DEFAULT);
  curandDestroyGenerator(gen);
  curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);
  curandSetStream(gen, s);
  curandGenerateUniform(gen, managed, n);
  const float first = managed[0];  // expected-warning:23{{host-device-race}}
  curandDestroyGenerator(gen);
  return first;
}
