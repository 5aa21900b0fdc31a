// Host functions run in stream order: an event recorded after one covers the
// work before it.
#include "common.cuh"

static void CUDART_CB Note(void* flag) { *static_cast<int*>(flag) = 1; }

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t s1, s2;
  cudaEvent_t done;
  float *a, *b;
  int flag = 0;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CHECK(cudaEventCreate(&done));
  CHECK(cudaMalloc(&a, kN * sizeof(float)));
  CHECK(cudaMalloc(&b, kN * sizeof(float)));
  spin_then_fill<<<64, 256, 0, s1>>>(a, 1000000, kN);
  CHECK(cudaLaunchHostFunc(s1, Note, &flag));
  CHECK(cudaEventRecord(done, s1));
  if (!racy) CHECK(cudaStreamWaitEvent(s2, done, 0));
  scale<<<64, 256, 0, s2>>>(a, b, kN);
  CHECK(cudaDeviceSynchronize());
  return flag == 1 ? 0 : 4;
}
