// 16 host threads, each with its own stream and buffer, launching
// concurrently; in the racy variant each thread also reads its neighbour's
// buffer without waiting for the neighbour's stream.
#include <atomic>
#include <thread>
#include <vector>

#include "common.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  constexpr int kThreads = 16, kLaunches = 200, kElems = 1 << 14;
  std::vector<float*> buf(kThreads), out(kThreads);
  for (int i = 0; i < kThreads; ++i) {
    CHECK(cudaMalloc(&buf[i], kElems * sizeof(float)));
    CHECK(cudaMalloc(&out[i], kElems * sizeof(float)));
  }
  std::atomic<int> filled{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      cudaStream_t s;
      CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      for (int k = 0; k < kLaunches; ++k) {
        fill<<<16, 256, 0, s>>>(buf[t], float(k), kElems);
        scale<<<16, 256, 0, s>>>(buf[t], out[t], kElems);
      }
      if (racy) {
        filled++;
        while (filled < kThreads) std::this_thread::yield();
        scale<<<16, 256, 0, s>>>(buf[(t + 1) % kThreads], out[t], kElems);
      }
      CHECK(cudaStreamSynchronize(s));
      CHECK(cudaStreamDestroy(s));
    });
  }
  for (auto& th : threads) th.join();
  return 0;
}
