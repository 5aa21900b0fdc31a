// A kernel that takes a struct of device pointers by value and writes only
// one of its buffers, while another stream reads a buffer: "racy" reads the
// one it writes, "fixed" one it never touches. Fast mode sees every pointer
// of the struct and knows neither which the kernel uses nor how: a possible
// race, a warning, either way; `run --precise` sees the bytes and reports
// exactly the racy one, as an error.
#include "common.cuh"

struct Buffers {
  const float* a;
  float* b;
  float* c;
};

__global__ void write_b(Buffers buffers, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    buffers.b[i] = 2 * buffers.a[i];
}

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  float *a, *b, *c, *d;
  for (float** p : {&a, &b, &c, &d}) {
    CHECK(cudaMalloc(p, kN * sizeof(float)));
    CHECK(cudaMemset(*p, 0, kN * sizeof(float)));
  }
  CHECK(cudaDeviceSynchronize());
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  write_b<<<64, 256, 0, s1>>>(Buffers{a, b, c}, kN);
  scale<<<64, 256, 0, s2>>>(racy ? b : c, d, kN);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
