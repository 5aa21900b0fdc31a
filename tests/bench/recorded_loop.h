// A recorded trace (testdata/traces/) played again and again into one
// engine, as a long run of the program it came from would feed it: the first
// pass is the whole trace; later passes leave out what a program does once
// (string and stack definitions, process and thread names, stream creation
// and destruction, which would make new lanes every pass) and number the
// host threads' epochs on from where the previous pass ended, so that
// releases stay in increasing order. Allocations, frees, pool blocks, events,
// graphs, kernels, copies and synchronization repeat as recorded.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/engine.h"
#include "runtime/trace_record.h"

namespace streamcheck::bench {

class RecordedLoop {
 public:
  // Reads the trace at `path`; empty() when it cannot be read.
  explicit RecordedLoop(const std::string& path);
  bool empty() const { return body_.empty(); }
  // The whole trace once (the first pass).
  void First(Engine& engine) const;
  // One more pass of the body: returns the records it processed.
  uint64_t Pass(Engine& engine);

 private:
  std::vector<TraceRecord> all_;
  std::vector<TraceRecord> body_;
  std::vector<size_t> thread_records_;  // indices in body_ of releases and acquires
  uint32_t epoch_span_ = 0;             // the highest epoch a thread releases, plus one
};

}  // namespace streamcheck::bench
