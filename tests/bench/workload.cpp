#include "tests/bench/workload.h"

#include <string>

namespace streamcheck::bench {
namespace {
constexpr StringId kApiLaunch = 1, kApiRecord = 2, kApiWait = 3, kApiSync = 4, kApiMalloc = 5,
                   kApiStreamCreate = 6, kApiEventCreate = 7, kFirstKernelName = 16;
}  // namespace

WorkloadGenerator::WorkloadGenerator(WorkloadShape shape, uint32_t seed) : shape_(shape), rng_(seed) {
  for (int s = 0; s < shape_.streams; ++s) stream_handles_.push_back(0x5500 + s * 0x10);
  last_output_.assign(shape_.streams, -1);
}

std::vector<TraceRecord> WorkloadGenerator::Prelude() {
  std::vector<TraceRecord> out;
  auto define = [&](StringId id, std::string text) { out.push_back(StringDefinition(id, std::move(text))); };
  define(kApiLaunch, "cudaLaunchKernel");
  define(kApiRecord, "cudaEventRecord");
  define(kApiWait, "cudaStreamWaitEvent");
  define(kApiSync, "cudaStreamSynchronize");
  define(kApiMalloc, "cudaMalloc");
  define(kApiStreamCreate, "cudaStreamCreateWithFlags");
  define(kApiEventCreate, "cudaEventCreate");
  for (int k = 0; k < shape_.kernel_names; ++k) define(kFirstKernelName + k, "kernel_" + std::to_string(k));
  for (int s = 0; s < shape_.streams; ++s) {
    TraceRecord r;
    r.op = OpCode::kStreamCreate;
    r.thread = 1;
    r.api = kApiStreamCreate;
    r.stream = stream_handles_[s];
    r.flags = s % 2 ? kStreamNonBlocking : 0;
    out.push_back(std::move(r));
  }
  for (int e = 0; e < shape_.events; ++e) {
    TraceRecord r;
    r.op = OpCode::kEventCreate;
    r.thread = 1;
    r.api = kApiEventCreate;
    r.event = 0xe000 + e;
    out.push_back(std::move(r));
  }
  for (int b = 0; b < shape_.live_buffers; ++b) {
    TraceRecord r;
    r.op = OpCode::kMalloc;
    r.thread = 1;
    r.api = kApiMalloc;
    r.dst = BufferAddress(b);
    r.size = BufferSize(b);
    out.push_back(std::move(r));
  }
  return out;
}

// The first kSharedInputs buffers are read-only inputs (weights) any stream
// reads; every other buffer b belongs to stream b % streams, which alone
// writes it.
constexpr int kSharedInputs = 1024;

int WorkloadGenerator::BufferOf(int stream) {
  const int first_row = kSharedInputs / shape_.streams;
  const int rows = shape_.live_buffers / shape_.streams - first_row;
  return (first_row + static_cast<int>(rng_() % rows)) * shape_.streams + stream;
}

void WorkloadGenerator::Next(TraceRecord* r) {
  r->Clear();
  r->thread = 1;
  ++ops_;
  if (pending_join_ == 1) {  // the other half of a fork/join: B waits on A's event
    r->op = OpCode::kStreamWaitEvent;
    r->api = kApiWait;
    r->stream = stream_handles_[join_to_];
    r->event = 0xe000 + join_event_;
    pending_join_ = -1;
    cross_read_stream_ = join_to_;
    return;
  }
  const uint64_t dice = rng_() % 100;
  if (dice < 8) {  // fork/join: A records, B will wait
    join_from_ = static_cast<int>(rng_() % shape_.streams);
    join_to_ = (join_from_ + 1 + static_cast<int>(rng_() % (shape_.streams - 1))) % shape_.streams;
    join_event_ = static_cast<int>(rng_() % shape_.events);
    r->op = OpCode::kEventRecord;
    r->api = kApiRecord;
    r->stream = stream_handles_[join_from_];
    r->event = 0xe000 + join_event_;
    pending_join_ = 1;
    return;
  }
  if (dice < 9) {  // an occasional host synchronize
    r->op = OpCode::kStreamSynchronize;
    r->api = kApiSync;
    r->stream = stream_handles_[rng_() % shape_.streams];
    return;
  }
  int stream = static_cast<int>(rng_() % shape_.streams);
  if (cross_read_stream_ >= 0) {  // right after a join, B does the next kernel
    stream = cross_read_stream_;
    cross_read_stream_ = -1;
  }
  r->op = OpCode::kKernelLaunch;
  r->api = kApiLaunch;
  r->name = kFirstKernelName + static_cast<StringId>(rng_() % shape_.kernel_names);
  r->stream = stream_handles_[stream];
  const int weights = static_cast<int>(rng_() % kSharedInputs);
  const bool chained = shape_.pattern == AccessPattern::kProducerConsumer && last_output_[stream] >= 0;
  const int in = chained ? last_output_[stream] : BufferOf(stream);
  int out = BufferOf(stream);
  if (out == in) out = BufferOf(stream);  // a kernel rarely writes its own input
  last_output_[stream] = out;
  const AccessCertainty c = shape_.certainty;
  r->accesses.push_back({BufferAddress(weights), BufferSize(weights), AccessMode::kRead, c});
  r->accesses.push_back({BufferAddress(in), BufferSize(in), AccessMode::kRead, c});
  r->accesses.push_back({BufferAddress(out), BufferSize(out), AccessMode::kWrite, c});
}

}  // namespace streamcheck::bench
