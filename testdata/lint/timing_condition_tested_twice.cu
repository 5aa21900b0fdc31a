// The host waits for a stop event on every path through two tests of one
// condition: a helper returns early `if (blocking)` before synchronizing the
// streams, and its caller synchronizes `if (blocking)` before
// cudaEventElapsedTime (fixed; the shape of nccl-tests' completeColl and
// BenchTime, events recorded per stream in a helper). The events are waited
// for on the first test's false edge and the second's true edge, which the
// join between the tests keeps as guarded by the condition. A different
// condition, or the event recorded again between the tests, leaves it
// outstanding (racy).
#include <cuda_runtime.h>

enum status_t { kOk = 0, kFailed = 1 };
#define CHECK(x) do { status_t st_ = (x); if (st_ != kOk) return st_; } while (0)
#define CUDA_CHECK(x) do { if ((x) != cudaSuccess) return kFailed; } while (0)

struct Lanes {
  int count;
  cudaStream_t* streams;
  cudaEvent_t* marks;  // `per_lane` marks for each stream
  float* ms;
};

int blocking_mode = 0;
int batch = 1;

__global__ void step(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += 1.0f;
}

status_t drain(Lanes* l) {
  for (int i = 0; i < l->count; i++) CUDA_CHECK(cudaStreamSynchronize(l->streams[i]));
  return kOk;
}

status_t drain_unless_blocking(Lanes* l) {
  if (blocking_mode && batch <= 1) return kOk;
  return drain(l);
}

status_t mark_all(Lanes* l, int per_lane, int index) {
  for (int i = 0; i < l->count; i++) CUDA_CHECK(cudaEventRecord(l->marks[i * per_lane + index], l->streams[i]));
  return kOk;
}

status_t collect(Lanes* l, int per_lane) {
  for (int i = 0; i < l->count; i++)
    for (int j = 0; j + 1 < per_lane; j++)
      CUDA_CHECK(cudaEventElapsedTime(&l->ms[i * per_lane + j], l->marks[i * per_lane + j],
                                      l->marks[i * per_lane + j + 1]));
  return kOk;
}

status_t fixed_same_test(Lanes* l, float* d, int rounds) {
  for (int r = 0; r < rounds; r++) {
    CHECK(mark_all(l, rounds + 1, r));
    for (int i = 0; i < l->count; i++) step<<<4, 256, 0, l->streams[i]>>>(d, 1024);
  }
  CHECK(mark_all(l, rounds + 1, rounds));
  CHECK(drain_unless_blocking(l));
  if (blocking_mode && batch <= 1) CHECK(drain(l));
  CHECK(collect(l, rounds + 1));
  return kOk;
}

// The timed work goes through a pointer the analysis cannot follow, so the
// records capture no op it knows of: the events themselves are waited for on
// both paths (what the previous binary missed on nccl-tests' common.cu).
status_t fixed_work_through_pointer(Lanes* l, status_t (*run)(float*, cudaStream_t), float* d) {
  CHECK(mark_all(l, 2, 0));
  for (int i = 0; i < l->count; i++) CHECK(run(d, l->streams[i]));
  CHECK(mark_all(l, 2, 1));
  CHECK(drain_unless_blocking(l));
  if (blocking_mode && batch <= 1) CHECK(drain(l));
  CHECK(collect(l, 2));
  return kOk;
}

status_t racy_other_test(Lanes* l, float* d) {
  CHECK(mark_all(l, 2, 0));
  for (int i = 0; i < l->count; i++) step<<<4, 256, 0, l->streams[i]>>>(d, 1024);
  CHECK(mark_all(l, 2, 1));
  CHECK(drain_unless_blocking(l));
  if (batch <= 1) CHECK(drain(l));
  CHECK(collect(l, 2));  // expected-warning:9{{unsynchronized-timing}}
  return kOk;
}

// The stop event is recorded again, on another stream, after the first
// test: the second test's edges say nothing of that record.
float racy_recorded_again(cudaStream_t s, cudaStream_t other, cudaEvent_t start, cudaEvent_t stop, float* d,
                          void (*more)(float*, cudaStream_t)) {
  cudaEventRecord(start, s);
  step<<<4, 256, 0, s>>>(d, 1024);
  cudaEventRecord(stop, s);
  if (!blocking_mode) cudaStreamSynchronize(s);
  more(d, other);
  cudaEventRecord(stop, other);
  if (blocking_mode) cudaStreamSynchronize(s);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);  // expected-warning:3{{unsynchronized-timing}}
  return ms;
}
