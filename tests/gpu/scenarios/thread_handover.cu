// A producer thread fills a buffer on its stream and synchronizes it; a
// consumer thread, started before, reads the buffer on a stream of its own.
// Racy: the consumer merely runs later (it sleeps): nothing orders it after
// the synchronize, which orders only the thread that made it (the finding is
// "possible": streamcheck cannot tell a sleep from a lock-free handover).
// Fixed: the producer hands the buffer over through a mutex and a condition
// variable, which the preloaded library observes.
#include <chrono>
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
  bool ready = false;
  std::thread consumer([&] {
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (racy) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    } else {
      std::unique_lock<std::mutex> lock(m);
      cv.wait(lock, [&] { return ready; });
    }
    scale<<<64, 256, 0, s>>>(a, b, kN);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
  });
  std::thread producer([&] {
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    spin_then_fill<<<64, 256, 0, s>>>(a, 1000000, kN);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
    {
      std::lock_guard<std::mutex> lock(m);
      ready = true;
    }
    cv.notify_one();
  });
  producer.join();
  consumer.join();
  float first = 0;
  CHECK(cudaMemcpy(&first, b, sizeof first, cudaMemcpyDeviceToHost));
  std::printf("b[0] = %g\n", first);
  return 0;
}
