// Two host threads with their own streams: a host-side handover (an atomic
// flag) does not order the GPU work; an event does.
#include <atomic>
#include <thread>

#include "common.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  float *a, *b;
  cudaEvent_t done;
  CHECK(cudaMalloc(&a, kN * sizeof(float)));
  CHECK(cudaMalloc(&b, kN * sizeof(float)));
  CHECK(cudaEventCreate(&done));
  std::atomic<bool> handed_over{false};
  std::thread producer([&] {
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    spin_then_fill<<<64, 256, 0, s>>>(a, 1000000, kN);
    CHECK(cudaEventRecord(done, s));
    handed_over = true;
  });
  std::thread consumer([&] {
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    while (!handed_over) std::this_thread::yield();
    if (!racy) CHECK(cudaStreamWaitEvent(s, done, 0));
    scale<<<64, 256, 0, s>>>(a, b, kN);
    CHECK(cudaStreamSynchronize(s));
  });
  producer.join();
  consumer.join();
  return 0;
}
