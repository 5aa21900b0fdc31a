// Calls helpers of another translation unit (launchers.cu, through the
// compile database): the work they leave queued races with this file's, and
// the waits they do order it.
#include "launchers.h"

#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }

void racy_streams(float* a, float* b, int n) {
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  launch_produce(a, n, s1);
  consume<<<(n + 255) / 256, 256, 0, s2>>>(a, b, n);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
}

void fixed_streams(float* a, float* b, int n) {
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  produce_and_wait(a, n, s1);
  consume<<<(n + 255) / 256, 256, 0, s2>>>(a, b, n);
  cudaDeviceSynchronize();
}

float racy_host(float* d, float* h, int n) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  copy_back(h, d, n, s);
  return h[0];  // expected-warning:10{{host-device-race}}
}

float fixed_host(float* d, float* h, int n) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  copy_back(h, d, n, s);
  finish(s);
  return h[0];
}

// One helper's kernel on disjoint rows of one buffer (a halo row, the
// interior), chosen by the rows passed to the helper, and a sum only added
// to atomically: the summary carries the kernel's index arguments, so not a race.
void fixed_rows_apart(float* out, const float* in, float* sum, int first, int last, int nx) {
  cudaStream_t edge, bulk;
  cudaStreamCreate(&edge);
  cudaStreamCreate(&bulk);
  launch_rows(out, in, sum, first, first + 1, nx, edge);
  launch_rows(out, in, sum, first + 1, last - 1, nx, bulk);
  launch_rows(out, in, sum, last - 1, last, nx, edge);
  cudaDeviceSynchronize();
}

// The same rows on two streams: a race on `out`.
void racy_same_rows(float* out, const float* in, float* sum, int first, int last, int nx) {
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  launch_rows(out, in, sum, first, last, nx, a);
  launch_rows(out, in, sum, first, last, nx, b);  // expected-warning:3{{cross-stream-race}}{{writes `out`}}
  cudaDeviceSynchronize();
}

// Reads p on the host when probe is host memory, else copies it on s (faiss's
// Tensor::copyToVector after GpuIndex::search, whose summary leaves its copy
// into device memory queued: the host path cannot meet it when both ask of
// one pointer).
static void read_back(float* out, const float* p, const float* probe, int n, cudaStream_t s) {
  int dev = device_of(probe);
  if (dev == -1) {
    std::memcpy(out, p, n * sizeof(float));
  } else {
    cudaMemcpyAsync(out, p, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
  }
}

void fixed_fetch_then_read(float* results, const float* d, float* out, int n, cudaStream_t s) {
  fetch_results(results, d, n);
  read_back(out, results, results, n, s);
}

void racy_fetch_then_read_other(float* results, const float* d, const float* probe, float* out, int n,
                                cudaStream_t s) {
  fetch_results(results, d, n);
  read_back(out, results, probe, n, s);  // expected-warning:3{{host-device-race}}{{queued by `fetch_results`}}
}

__global__ void fill_in(float* p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = i; }

// Ordered through the event wrappers of launchers.cu: record after produce on
// s1, s2 waits for it before consume.
void fixed_event_wrappers(float* a, float* b, int n, cudaStream_t s1, cudaStream_t s2, cudaEvent_t ev) {
  fill_in<<<(n + 255) / 256, 256, 0, s1>>>(a, n);
  record_on(ev, s1);
  wait_on(ev, s2);
  consume<<<(n + 255) / 256, 256, 0, s2>>>(a, b, n);
}

// The record comes before fill_in (it holds none of it); a later record on s2
// orders s3's write of `b` after consume, and nothing orders s1 after s2.
void racy_event_wrappers(float* a, float* b, int n, cudaEvent_t ev) {
  cudaStream_t s1, s2, s3;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  cudaStreamCreate(&s3);
  record_on(ev, s1);
  fill_in<<<(n + 255) / 256, 256, 0, s1>>>(a, n);
  wait_on(ev, s2);
  consume<<<(n + 255) / 256, 256, 0, s2>>>(a, b, n);  // expected-warning:3{{cross-stream-race}}
  cudaEvent_t done;
  cudaEventCreate(&done);
  record_on(done, s2);
  wait_on(done, s3);
  fill_in<<<(n + 255) / 256, 256, 0, s3>>>(b, n);
  fill_in<<<(n + 255) / 256, 256, 0, s1>>>(a, n);  // expected-warning:3{{cross-stream-race}}{{write-after-read}}
}

// A pageable source of another file's async copy has been read when the
// call returns (staged), as one made here: freeing it then is fine. A pinned
// one is read by the copy when it runs: writing it before is a race.
void fixed_pageable_source_freed(float* d, int n, cudaStream_t s) {
  float* h = static_cast<float*>(calloc(n, sizeof(float)));
  push_to(d, h, n, s);
  free(h);
}

void racy_pinned_source_written(float* d, int n, cudaStream_t s) {
  float* h;
  cudaMallocHost(&h, n * sizeof(float));
  push_to(d, h, n, s);
  h[0] = 1.0f;  // expected-warning:3{{host-device-race}}
  cudaStreamSynchronize(s);
  cudaFreeHost(h);
}

// A pageable destination of another file's async copy is staged: the host
// reading it unsynchronized is the documented pageable hazard, reported as
// such (not as a race with a copy that may have run synchronously).
float racy_pageable_destination_read(const float* d, int n, cudaStream_t s) {
  std::vector<float> v(n);
  copy_back(v.data(), d, n, s);  // expected-warning:3{{pageable-async-copy}}
  return v[0];
}

float fixed_pageable_destination_read(const float* d, int n, cudaStream_t s) {
  std::vector<float> v(n);
  copy_back(v.data(), d, n, s);
  finish(s);
  return v[0];
}

// The getter's stream is one stream in every file: the pull waits for it,
// so for the push before it too. Without the pull the push is pending.
float fixed_round_trip_on_getter_stream(float* d, int n) {
  float* h;
  cudaMallocHost(&h, n * sizeof(float));
  push_on_shared(d, h, n);
  pull_on_shared(h, d, n);
  h[0] = 0.0f;
  const float first = h[1];
  cudaFreeHost(h);
  return first;
}

void racy_push_on_getter_stream(float* d, int n) {
  float* h;
  cudaMallocHost(&h, n * sizeof(float));
  push_on_shared(d, h, n);
  h[0] = 0.0f;  // expected-warning:3{{host-device-race}}
  cudaStreamSynchronize(shared_stream());
  cudaFreeHost(h);
}

// What another file's allocator returns is known: a pageable source is read
// when the copy's call returns; a pinned one only when the copy runs.
void fixed_pageable_from_allocator_freed(float* d, int n, cudaStream_t s) {
  float* h = host_floats(n);
  push_to(d, h, n, s);
  free(h);
}

void racy_pinned_from_allocator_written(float* d, int n, cudaStream_t s) {
  float* h = pinned_floats(n);
  push_to(d, h, n, s);
  h[0] = 1.0f;  // expected-warning:3{{host-device-race}}
  cudaStreamSynchronize(s);
  cudaFreeHost(h);
}
