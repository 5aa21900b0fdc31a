// The analysis worker's picture of memory, kept in record order: the live
// allocations and caching-allocator blocks with the boundaries copies and
// pointers revealed (access_extent.h), and each thread's open framework ops'
// regions (framework_ops.h). With it the worker turns a launch's argument
// words (kernel_arguments.h) into the accesses the engine checks.
//
// The program's thread only copies the words: matching them against the
// allocations touches tables a real program has long pushed out of the
// caches, and a caching allocator changes them around every op, so doing it
// on the worker takes most of a launch's and a block event's cost off the
// program. Records reach the worker in the order they were made under the
// tracer's lock, so each launch is matched against the table as it was when
// the launch was made. No CUDA here: unit-tested without a GPU.
#pragma once

#include <vector>

#include "runtime/trace_record.h"
#include "tracer/kernel_access/access_extent.h"
#include "tracer/frameworks/framework_ops.h"

namespace streamcheck::tracer {

class RecordResolver {
 public:
  // Applies the record's effect on the picture (a record marked
  // closes_framework_ops closes its thread's open ops first) and completes
  // it: argument words (r.pointer_words) become accesses. False when the
  // record is the tracer's own (kOpenFrameworkOps) or is to be dropped: the
  // free of a block handed out before the framework's plugin attached.
  bool Resolve(TraceRecord& r);
  const AllocationBounds& allocations() const { return bounds_; }

 private:
  OpRegionStack& OpsOf(ThreadId thread);

  AllocationBounds bounds_;
  std::vector<OpRegionStack> ops_by_thread_;  // by ThreadId (small and dense)
  std::vector<MemoryAccess> words_;           // scratch, keeps its capacity
};

}  // namespace streamcheck::tracer
