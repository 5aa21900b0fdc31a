// Per-thread default streams (built with --default-stream per-thread) are not
// ordered with each other; a stream synchronize before handing over orders them.
// The handover is a mutex and a condition variable, which the preloaded
// library observes (a lock-free one, an atomic flag, would leave the fixed
// variant a possible race: thread_handover.cu).
#include <condition_variable>
#include <mutex>
#include <thread>

#include "common.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  float *a, *b;
  CHECK(cudaMalloc(&a, kN * sizeof(float)));
  CHECK(cudaMalloc(&b, kN * sizeof(float)));
  std::mutex m;
  std::condition_variable cv;
  bool produced = false;
  std::thread producer([&] {
    spin_then_fill<<<64, 256>>>(a, 1000000, kN);  // this thread's default stream
    if (!racy) CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    {
      std::lock_guard<std::mutex> lock(m);
      produced = true;
    }
    cv.notify_one();
  });
  std::thread consumer([&] {
    {
      std::unique_lock<std::mutex> lock(m);
      cv.wait(lock, [&] { return produced; });
    }
    scale<<<64, 256>>>(a, b, kN);
    CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  });
  producer.join();
  consumer.join();
  return 0;
}
