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
