// Per-thread default streams (built with --default-stream per-thread) are not
// ordered with each other; a stream synchronize before handing over orders them.
#include <atomic>
#include <thread>

#include "common.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  float *a, *b;
  CHECK(cudaMalloc(&a, kN * sizeof(float)));
  CHECK(cudaMalloc(&b, kN * sizeof(float)));
  std::atomic<bool> produced{false};
  std::thread producer([&] {
    spin_then_fill<<<64, 256>>>(a, 1000000, kN);  // this thread's default stream
    if (!racy) CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    produced = true;
  });
  std::thread consumer([&] {
    while (!produced) std::this_thread::yield();
    scale<<<64, 256>>>(a, b, kN);
    CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  });
  producer.join();
  consumer.join();
  return 0;
}
