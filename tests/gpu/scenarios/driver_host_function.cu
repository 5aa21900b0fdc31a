// nvcc-flags: -lcuda
// A completion callback launched through the driver (cuLaunchHostFunc), as
// XLA tells a waiting thread that a copy into host memory is done: the
// callback sets a flag under a mutex and signals a condition variable that
// the main thread waits on. Fixed: the main thread reads the pinned copy
// after the callback said so (CUDA runs it once the copy has completed, and
// the main thread is after it through the mutex). Racy: it reads without
// waiting for the callback.
#include <condition_variable>
#include <mutex>

#include "driver_api.cuh"

namespace {

std::mutex g_mutex;
std::condition_variable g_done_signal;
bool g_done = false;

void CUDA_CB CopyDone(void*) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_done = true;
  g_done_signal.notify_all();
}

}  // namespace

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  CHECK(cudaFree(nullptr));  // the runtime's context, which the driver calls use
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float* device;
  CHECK(cudaMalloc(&device, kN * sizeof(float)));
  float* pinned;
  CHECK(cudaHostAlloc(&pinned, kN * sizeof(float), cudaHostAllocDefault));
  spin_then_fill<<<64, 256, 0, s>>>(device, kBusyNs, kN);
  CHECK(cudaMemcpyAsync(pinned, device, kN * sizeof(float), cudaMemcpyDeviceToHost, s));
  CU_CHECK(cuLaunchHostFunc(reinterpret_cast<CUstream>(s), CopyDone, nullptr));
  if (!racy) {
    std::unique_lock<std::mutex> lock(g_mutex);
    g_done_signal.wait(lock, [] { return g_done; });
  }
  HostRead(pinned, 1024);
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(device));
  return 0;
}
