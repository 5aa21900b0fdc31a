// Shared parts of the host-access scenarios (the host reading or writing
// pinned, registered or managed memory while device work on it may still run;
// tracer/host/host_guards.h observes those accesses). Each program prints
// only a fixed line: the values a racy read sees depend on timing, and the
// GPU runner compares each program's output with and without the tracer.
#pragma once

#include <cstdio>

#include "common.cuh"

constexpr long long kBusyNs = 100000000;  // ~50 ms of spin_then_fill: the work is really pending

// What the host reads, kept from the optimizer and printed nowhere.
inline volatile float g_host_sink = 0;

inline void HostRead(const float* p, int n) {
  float sum = 0;
  for (int i = 0; i < n; ++i) sum += p[i];
  g_host_sink = sum;
}

inline void Done(const char* name, bool racy) { std::printf("%s %s done\n", name, racy ? "racy" : "fixed"); }

// A pinned buffer of kN floats that an asynchronous copy on a non-blocking
// stream is filling, behind ~50 ms of work on that stream.
struct PinnedCopyInFlight {
  cudaStream_t stream;
  float* device;
  float* pinned;
  PinnedCopyInFlight() {
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&device, kN * sizeof(float)));
    CHECK(cudaMallocHost(&pinned, kN * sizeof(float)));
    spin_then_fill<<<64, 256, 0, stream>>>(device, kBusyNs, kN);
    CHECK(cudaMemcpyAsync(pinned, device, kN * sizeof(float), cudaMemcpyDeviceToHost, stream));
  }
  void Free() {
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaFree(device));
  }
};

// Managed memory (kN floats) whose first 1024 a kernel on `producer` writes,
// behind ~50 ms of work.
inline float* ManagedWrittenOn(cudaStream_t producer) {
  float* managed;
  CHECK(cudaMallocManaged(&managed, kN * sizeof(float)));
  spin_then_fill<<<64, 256, 0, producer>>>(managed, kBusyNs, 1024);
  return managed;
}

inline cudaStream_t NonBlockingStream() {
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return s;
}
