// A kernel that spins on a pinned flag until the host releases it, as XLA's
// timer does (DelayKernel(volatile GpuSemaphoreState*)), then writes its
// result into pinned memory. The flag is synchronization in both variants:
// the host writes it while the kernel runs, through a pointer to volatile,
// which PTX takes as a relaxed atomic access at system scope. Racy: the host
// reads the result without waiting for the kernel; fixed: after waiting.
#include "host_access.cuh"

__global__ void wait_then_write(volatile int* release, float* out, int n) {
  if (threadIdx.x == 0)
    while (*release == 0) {
    }
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = 1.0f;
}

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t s = NonBlockingStream();
  // Allocations of their own pages: the host's write of the flag then
  // never opens a guarded page of the result.
  constexpr size_t kFlagBytes = size_t{2} << 20;
  int* release;
  float* out;
  CHECK(cudaHostAlloc(&out, kN * sizeof(float), cudaHostAllocDefault));
  CHECK(cudaHostAlloc(&release, kFlagBytes, cudaHostAllocDefault));
  *release = 0;
  wait_then_write<<<1, 256, 0, s>>>(release, out, kN);
  *static_cast<volatile int*>(release) = 1;  // the kernel is spinning: this lets it go on
  if (!racy) CHECK(cudaStreamSynchronize(s));
  HostRead(out + kN / 2, 1024);  // the middle of the result, pages away from the flag
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaFreeHost(out));
  CHECK(cudaFreeHost(release));
  Done("volatile_flag", racy);
  return 0;
}
