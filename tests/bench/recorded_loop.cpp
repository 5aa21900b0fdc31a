#include "tests/bench/recorded_loop.h"

#include <algorithm>

#include "runtime/thread_epochs.h"
#include "runtime/trace/trace_io.h"

namespace streamcheck::bench {
namespace {

bool OncePerProcess(OpCode op) {
  return op == OpCode::kDefineString || op == OpCode::kDefineStack || op == OpCode::kProcessInfo ||
         op == OpCode::kThreadName || op == OpCode::kStreamCreate || op == OpCode::kStreamDestroy;
}

}  // namespace

RecordedLoop::RecordedLoop(const std::string& path) {
  std::string error;
  auto source = OpenTrace(path, &error);
  if (!source) return;
  TraceRecord r;
  while (source->Next(&r) == TraceSource::Status::kRecord) all_.push_back(r);
  for (const TraceRecord& record : all_) {
    if (OncePerProcess(record.op)) continue;
    if (record.op == OpCode::kThreadRelease) epoch_span_ = std::max(epoch_span_, record.id + 1);
    if (record.op == OpCode::kThreadRelease || record.op == OpCode::kThreadAcquire)
      thread_records_.push_back(body_.size());
    body_.push_back(record);
  }
}

void RecordedLoop::First(Engine& engine) const {
  for (const TraceRecord& r : all_) engine.Process(r);
}

uint64_t RecordedLoop::Pass(Engine& engine) {
  for (size_t i : thread_records_) {
    TraceRecord& r = body_[i];
    if (r.op == OpCode::kThreadRelease) r.id += epoch_span_;
    for (Handle& dep : r.deps) dep = ThreadEpochDep(ThreadOfDep(dep), EpochOfDep(dep) + epoch_span_);
  }
  for (const TraceRecord& r : body_) engine.Process(r);
  return body_.size();
}

}  // namespace streamcheck::bench
