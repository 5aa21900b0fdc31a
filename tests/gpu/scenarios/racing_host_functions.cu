// Two host functions on two streams write the same pinned buffer. CUDA runs
// both on one driver thread, but orders host functions of different streams
// in no way (CUDA programming guide, "Host Functions (Callbacks)"): racy.
// Fixed: the second stream waits on an event recorded on the first after the
// first function's launch. Each function's write follows a copy into the
// buffer on its stream, so the buffer's pages are guarded when it writes.
#include "common.cuh"

static void CUDART_CB WriteHeader(void* p) { static_cast<float*>(p)[0] = 1.0f; }
static void CUDART_CB WriteAgain(void* p) { static_cast<float*>(p)[0] = 2.0f; }

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t s1, s2;
  cudaEvent_t after_first;
  float *dev, *pinned;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CHECK(cudaEventCreateWithFlags(&after_first, cudaEventDisableTiming));
  CHECK(cudaMalloc(&dev, kN * sizeof(float)));
  CHECK(cudaMallocHost(&pinned, kN * sizeof(float)));
  spin_then_fill<<<64, 256, 0, s1>>>(dev, 1000000, kN);
  CHECK(cudaMemcpyAsync(pinned, dev, kN * sizeof(float), cudaMemcpyDeviceToHost, s1));
  CHECK(cudaLaunchHostFunc(s1, WriteHeader, pinned));
  CHECK(cudaEventRecord(after_first, s1));
  if (!racy) CHECK(cudaStreamWaitEvent(s2, after_first, 0));
  CHECK(cudaLaunchHostFunc(s2, WriteAgain, pinned));
  CHECK(cudaDeviceSynchronize());
  return 0;
}
