// Templated launch helpers, instantiated for two element types: the race
// crosses the template boundary and is reported at the call of each
// instantiation; the fixed twin passes one stream to both.
#include <cuda_runtime.h>

template <typename T>
__global__ void fill(T* out, T v, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = v; }
template <typename T>
__global__ void twice(const T* in, T* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = in[i] + in[i]; }

template <typename T>
void launch_fill(T* out, T v, int n, cudaStream_t s) { fill<T><<<(n + 255) / 256, 256, 0, s>>>(out, v, n); }
template <typename T>
void launch_twice(const T* in, T* out, int n, cudaStream_t s) { twice<T><<<(n + 255) / 256, 256, 0, s>>>(in, out, n); }

template <typename T>
void racy(T* a, T* b, int n) {
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  launch_fill<T>(a, T(1), n, s1);
  launch_twice<T>(a, b, n, s2);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
}

template <typename T>
void fixed(T* a, T* b, int n) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  launch_fill<T>(a, T(1), n, s);
  launch_twice<T>(a, b, n, s);
  cudaDeviceSynchronize();
}

template void racy<float>(float*, float*, int);
template void racy<int>(int*, int*, int);
template void fixed<float>(float*, float*, int);
template void fixed<int>(int*, int*, int);
