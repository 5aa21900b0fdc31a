// Records for tests of the tracer's outputs: races a traced process finds.
#pragma once

#include <mutex>
#include <string>
#include <tuple>

#include "tracer/tracer.h"

namespace streamcheck::tracer::testing_records {

// Two non-blocking streams and two buffers, each written by a kernel on one
// stream and read by one on the other: two races, kernels `keep_*` and `drop_*`.
inline void EmitTwoRaces(Tracer& t) {
  std::lock_guard<TracerLock> lock(t.tracer_lock());
  for (Handle stream : {Handle{0x55}, Handle{0x66}}) {
    TraceRecord create;
    create.op = OpCode::kStreamCreate;
    create.stream = stream;
    create.flags = 1;  // non-blocking
    t.Emit(create);
  }
  Address buffer = 0x7f0000000000;
  for (const char* kernel : {"keep", "drop"}) {
    TraceRecord malloc;
    malloc.op = OpCode::kMalloc;
    malloc.dst = buffer;
    malloc.size = 4096;
    t.Emit(malloc);
    for (auto [stream, mode, suffix] : {std::tuple{Handle{0x55}, AccessMode::kWrite, "_writer"},
                                        std::tuple{Handle{0x66}, AccessMode::kRead, "_reader"}}) {
      TraceRecord launch;
      launch.op = OpCode::kKernelLaunch;
      launch.stream = stream;
      launch.name = t.Intern(std::string(kernel) + suffix);
      launch.accesses = {{buffer, 4096, mode}};
      t.Emit(launch);
    }
    buffer += 0x100000;
  }
}

}  // namespace streamcheck::tracer::testing_records
