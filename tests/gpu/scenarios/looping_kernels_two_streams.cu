// Two kernels that add to the same elements in a loop (cuda-samples
// simpleStreams' init_array), one on each stream: "racy" launches the
// second after a host sleep long enough for the first to be over, which
// orders nothing; "fixed" makes the second stream wait for an event recorded
// after the first kernel.
// Under `run --precise` the warps' table that spares a loop's repeated
// accesses the log is shared by every launch of the context (a warp slot of
// an SM runs one warp at a time, whichever kernel's): the second kernel's
// warps find the first one's entries for the very bytes they write, and
// must log their own writes all the same. The launches are arranged so that
// the two kernels' launch summaries have the same generation (three made at
// once first, each used once), and the second kernel's is one made before
// (a new one would clear the table): only the entries' slot tells the two
// launches apart. A kernel spinning on a third stream meanwhile keeps the
// first launch's summary from being given back (the analysis goes in
// order), so the second launch takes another. (Built with the slot left out
// of the tag, the tracer reported nothing for "racy".) Fast mode guesses
// the kernels' extents from the pointer both get: a warning.
#include <chrono>
#include <thread>

#include "common.cuh"

__device__ unsigned SmId() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ unsigned WarpSlot() {
  unsigned id;
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(id));
  return id;
}

// Each warp adds to the 32 elements of the warp slot it runs in, so the
// second kernel's warps touch exactly the bytes the first kernel's warps
// of the same slot touched (and remembered in the slot's entries).
constexpr unsigned kSms = 256, kWarpSlots = 64;
__global__ void add_repeatedly(float* data, float addend, int iterations) {
  volatile float* mine = data + ((SmId() % kSms) * kWarpSlots + WarpSlot() % kWarpSlots) * 32 + threadIdx.x % 32;
  for (int k = 0; k < iterations; ++k) *mine += addend;
}

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  // Waves of blocks enough for every warp slot of every SM to run warps of both.
  constexpr int kThreads = 256, kBlocks = 4096, kElements = kSms * kWarpSlots * 32;
  float *data, *other;
  CHECK(cudaMalloc(&data, kElements * sizeof(float)));
  CHECK(cudaMalloc(&other, kThreads * sizeof(float)));
  CHECK(cudaMemset(data, 0, kElements * sizeof(float)));
  CHECK(cudaDeviceSynchronize());
  cudaStream_t s0, s1, s2;
  cudaEvent_t first_done;
  CHECK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CHECK(cudaEventCreateWithFlags(&first_done, cudaEventDisableTiming));
  // Three summaries at once (each kernel runs long enough for the next
  // launch to find the earlier ones still taken), each used by one launch.
  cudaStream_t warm_up_streams[3] = {s0, s1, s2};
  for (cudaStream_t stream : warm_up_streams) {
    float* warm_up;
    CHECK(cudaMalloc(&warm_up, kElements * sizeof(float)));
    add_repeatedly<<<kBlocks, kThreads, 0, stream>>>(warm_up, 1, 2000);
  }
  CHECK(cudaDeviceSynchronize());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the summaries given back
  spin_then_fill<<<1, kThreads, 0, s0>>>(other, 400'000'000, kThreads);  // some 200 ms
  add_repeatedly<<<kBlocks, kThreads, 0, s1>>>(data, 1, 8);
  CHECK(cudaEventRecord(first_done, s1));
  // Over in time, not in order: the warps of the second kernel take the
  // slots the first one's left.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (!racy) CHECK(cudaStreamWaitEvent(s2, first_done, 0));
  add_repeatedly<<<kBlocks, kThreads, 0, s2>>>(data, 1, 8);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
