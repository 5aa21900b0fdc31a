// 16 host threads at once, each filling its own page-aligned chunk of one
// pinned buffer with an asynchronous copy on its own stream and reading the
// chunk back: without waiting (racy), or after synchronizing its stream.
// Sixteen threads fault in guarded pages together.
#include <atomic>
#include <thread>
#include <vector>

#include "host_access.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  constexpr int kThreads = 16, kChunk = 1 << 14;  // floats: 64 KiB each
  float* pinned;
  std::vector<float*> device(kThreads);  // each its own (the pinned chunks share one allocation)
  for (float*& d : device) CHECK(cudaMalloc(&d, kChunk * sizeof(float)));
  CHECK(cudaMallocHost(&pinned, kThreads * kChunk * sizeof(float)));
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      cudaStream_t s;
      CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      float* mine = pinned + t * kChunk;
      spin_then_fill<<<16, 256, 0, s>>>(device[t], kBusyNs / 4, kChunk);
      CHECK(cudaMemcpyAsync(mine, device[t], kChunk * sizeof(float), cudaMemcpyDeviceToHost, s));
      if (!racy) CHECK(cudaStreamSynchronize(s));
      ready++;
      while (ready < kThreads) std::this_thread::yield();  // all read at once
      float sum = 0;
      for (int i = 0; i < kChunk; i += 1024) sum += mine[i];
      g_host_sink = sum;
      CHECK(cudaStreamSynchronize(s));
      CHECK(cudaStreamDestroy(s));
    });
  for (auto& th : threads) th.join();
  CHECK(cudaFreeHost(pinned));
  for (float* d : device) CHECK(cudaFree(d));
  Done("many_threads_pinned", racy);
  return 0;
}
