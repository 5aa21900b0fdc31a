// Overhead benchmark (a): many small kernel launches round-robin over 4
// streams, with an event fork/join every 64 launches (the join makes stream 0
// wait for the others, the fork makes the others wait for stream 0). Prints
// microseconds per launch of host time, which is what the tracer adds to,
// after a warm-up of at least 0.5 s (an idle GPU clocks down and takes a
// while to clock up): the launches run in chunks of 2,000, each timed up to a
// device synchronization, and the line gives the chunks' median and their
// 10th percentile ("fast"; tests/gpu/bench/timing.py says why both).
// Started by turns.py, it times its chunks in turns with the other variants,
// as timing.py does (the protocol is in turns.py).
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                    \
  do {                                                                                 \
    cudaError_t err_ = (call);                                                         \
    if (err_ != cudaSuccess) {                                                         \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(3);                                                                    \
    }                                                                                  \
  } while (0)

// This process's place in turns.py's rotation; inactive without its variables.
class Turn {
 public:
  Turn() {
    const char* wait = std::getenv("BENCH_TURN_WAIT");
    const char* pass = std::getenv("BENCH_TURN_PASS");
    ready_ = std::getenv("BENCH_TURN_READY");
    chunks_ = std::getenv("BENCH_TURN_CHUNKS");
    if (wait == nullptr || pass == nullptr || ready_ == nullptr || chunks_ == nullptr) return;
    wait_ = open(wait, O_RDWR);  // read-write: never blocks, as in turns.py
    pass_ = open(pass, O_RDWR);
    if (wait_ < 0 || pass_ < 0) {
      std::perror("launch_rate: turn FIFOs");
      std::exit(3);
    }
    if (const char* cpu = std::getenv("BENCH_TURN_CPU"); cpu != nullptr && *cpu != '\0') {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(std::atoi(cpu), &one);
      if (sched_setaffinity(0, sizeof one, &one) != 0) std::perror("launch_rate: BENCH_TURN_CPU");  // this thread only
    }
  }
  bool active() const { return wait_ >= 0; }
  void Ready() const {
    if (!active()) return;
    const int fd = open(ready_, O_RDWR);
    if (fd < 0 || write(fd, "r", 1) != 1) std::exit(3);
    close(fd);
  }
  void Take() const {
    char token;
    if (active() && read(wait_, &token, 1) != 1) std::exit(3);
  }
  void Give() const {
    if (active() && write(pass_, "t", 1) != 1) std::exit(3);
  }
  void Save(const std::vector<double>& chunks) const {
    if (!active()) return;
    FILE* f = std::fopen(chunks_, "w");
    if (f == nullptr) std::exit(3);
    std::fprintf(f, "[");
    for (size_t i = 0; i < chunks.size(); ++i) std::fprintf(f, "%s%.6f", i ? ", " : "", chunks[i]);
    std::fprintf(f, "]\n");
    std::fclose(f);
  }

 private:
  int wait_ = -1, pass_ = -1;
  const char* ready_ = nullptr;
  const char* chunks_ = nullptr;
};

__global__ void axpy(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 0.5f * x[i];
}

int main(int argc, char** argv) {
  const int launches = argc > 1 ? std::atoi(argv[1]) : 200000;
  constexpr int kStreams = 4, kN = 1024, kJoinEvery = 64;
  cudaStream_t s[kStreams];
  cudaEvent_t done[kStreams];
  float *x, *y[kStreams];
  for (int i = 0; i < kStreams; ++i) {
    CHECK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming));
    CHECK(cudaMalloc(&y[i], kN * sizeof(float)));
  }
  CHECK(cudaMalloc(&x, kN * sizeof(float)));
  CHECK(cudaMemset(x, 0, kN * sizeof(float)));
  CHECK(cudaDeviceSynchronize());
  auto run = [&](int count) {
    for (int k = 0; k < count; ++k) {
      const int i = k % kStreams;
      axpy<<<kN / 256, 256, 0, s[i]>>>(x, y[i], kN);
      if (k % kJoinEvery == kJoinEvery - 1) {
        for (int j = 1; j < kStreams; ++j) {  // join into stream 0
          CHECK(cudaEventRecord(done[j], s[j]));
          CHECK(cudaStreamWaitEvent(s[0], done[j], 0));
        }
        CHECK(cudaEventRecord(done[0], s[0]));  // fork from stream 0
        for (int j = 1; j < kStreams; ++j) CHECK(cudaStreamWaitEvent(s[j], done[0], 0));
      }
    }
    CHECK(cudaDeviceSynchronize());
  };
  using Clock = std::chrono::steady_clock;
  const Turn turn;
  turn.Ready();
  turn.Take();
  const auto warm_until = Clock::now() + std::chrono::milliseconds(500);
  do run(2000);  // module loading, first-launch costs, GPU clocks
  while (Clock::now() < warm_until);
  turn.Give();
  constexpr int kChunkLaunches = 2000;
  const int chunks = std::max(10, launches / kChunkLaunches);
  const int per_chunk = std::max(1, launches / chunks);
  // In turns: untimed launches first, after another process had the CPU.
  const int settle = turn.active() ? std::max(1, per_chunk / 8) : 0;
  std::vector<double> us_per_launch;
  for (int c = 0; c < chunks; ++c) {
    turn.Take();
    if (settle > 0) run(settle);
    const auto t0 = Clock::now();
    run(per_chunk);
    us_per_launch.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / per_chunk);
    turn.Give();
  }
  turn.Save(us_per_launch);
  std::sort(us_per_launch.begin(), us_per_launch.end());
  const double median = (us_per_launch[(chunks - 1) / 2] + us_per_launch[chunks / 2]) / 2;
  const double fast = us_per_launch[chunks / 10];
  std::printf("launch_rate launches=%d fast_us_per_launch=%.3f us_per_launch=%.3f\n", per_chunk * chunks, fast,
              median);
  return 0;
}
