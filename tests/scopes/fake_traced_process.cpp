// A process the tracer observes without a GPU, for the tests of the pytest
// plugin (tests/python/): ctypes loads this library into pytest's Python
// under `streamcheck run`, where it starts the tracer as CUDA's injection
// would (from the environment `run` set, its scope hooks registered with the
// preloaded library), and its functions make the records the CUPTI callbacks
// would make for stream creations, allocations, launches and synchronizations.
#include <cstdint>
#include <cstdlib>
#include <mutex>

#include "tracer/scopes/scope_hooks.h"
#include "tracer/tracer.h"

namespace {

using streamcheck::OpCode;
using streamcheck::TraceRecord;
using streamcheck::tracer::Tracer;

Tracer* g_tracer = nullptr;

void Emit(TraceRecord& r) {
  if (g_tracer == nullptr) return;
  std::lock_guard<streamcheck::tracer::TracerLock> lock(g_tracer->tracer_lock());
  g_tracer->Emit(r);
}

void Finish() {
  std::lock_guard<streamcheck::tracer::TracerLock> lock(g_tracer->tracer_lock());
  g_tracer->Finish();
}

}  // namespace

extern "C" {

// What InitializeInjection does that matters here. Once.
__attribute__((visibility("default"))) void fake_cuda_init() {
  if (g_tracer != nullptr) return;
  g_tracer = new Tracer(streamcheck::tracer::TracerConfig::FromEnvironment());
  streamcheck::tracer::RegisterScopeHooks(g_tracer);
  std::atexit(Finish);
}

// A non-blocking stream (as PyTorch's and CuPy's side streams are).
__attribute__((visibility("default"))) void fake_stream_create(uint64_t stream) {
  TraceRecord r;
  r.op = OpCode::kStreamCreate;
  r.stream = stream;
  r.flags = 1;
  Emit(r);
}

__attribute__((visibility("default"))) void fake_malloc(uint64_t address, uint64_t size) {
  TraceRecord r;
  r.op = OpCode::kMalloc;
  r.dst = address;
  r.size = size;
  Emit(r);
}

// A kernel on `stream` (0: the legacy default stream) reading or writing the bytes.
__attribute__((visibility("default"))) void fake_launch(uint64_t stream, const char* kernel, uint64_t address,
                                                        uint64_t size, int write) {
  TraceRecord r;
  r.op = OpCode::kKernelLaunch;
  r.stream = stream;
  {
    std::lock_guard<streamcheck::tracer::TracerLock> lock(g_tracer->tracer_lock());
    r.name = g_tracer->Intern(kernel);
  }
  r.accesses = {{address, size, write ? streamcheck::AccessMode::kWrite : streamcheck::AccessMode::kRead}};
  Emit(r);
}

// cudaStreamWaitEvent after a record: `waiter` waits for `stream`'s work so far.
__attribute__((visibility("default"))) void fake_wait_stream(uint64_t waiter, uint64_t stream) {
  TraceRecord record;
  record.op = OpCode::kEventRecord;
  record.event = 0xe0e0;
  record.stream = stream;
  Emit(record);
  TraceRecord wait;
  wait.op = OpCode::kStreamWaitEvent;
  wait.event = 0xe0e0;
  wait.stream = waiter;
  Emit(wait);
}

__attribute__((visibility("default"))) void fake_synchronize() {
  TraceRecord r;
  r.op = OpCode::kDeviceSynchronize;
  Emit(r);
}

}  // extern "C"
