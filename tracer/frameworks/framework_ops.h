// The framework ops (PyTorch's aten::*) open on one host thread, as a
// framework plugin reports them (framework_hooks.h). Work issued inside takes
// the outermost op's name and stack, and a kernel's pointer arguments take the
// exact bytes of the op's tensors instead of what the access-range policy
// (access_extent.h) guesses.
//
// Two halves: FrameworkOpStack on the program's thread (names and stacks,
// which each record takes as it is made), OpRegionStack on the analysis
// worker (the regions, which refine a launch's accesses where its arguments
// are matched: record_resolver.h). An op's regions travel to the worker only
// when a record of the thread follows while the op is open, in front of that
// record, so opening and closing ops costs the program no lock and no queue.
// No CUDA here: unit-tested without a GPU.
#pragma once

#include <vector>

#include "runtime/ids.h"
#include "runtime/trace_record.h"
#include "tracer/frameworks/framework_hooks.h"

namespace streamcheck::tracer {

// The tracer's own record kind (outside the trace vocabulary: it never
// reaches the engine or a trace file): thread `thread` keeps its first `id`
// open ops on the worker and opens one more per entry of `deps`, with that
// many of `accesses` as its regions (begin, size, kWrite or kRead).
inline constexpr OpCode kOpenFrameworkOps = static_cast<OpCode>(0xf0);

class FrameworkOpStack {
 public:
  void Begin(StringId name, StackId stack, const StreamcheckTensorRegion* regions, size_t count);
  void End();
  bool empty() const { return open_ == 0; }
  // The outermost op: what the user called (aten::matmul, not the aten::mm inside).
  StringId name() const { return open_ == 0 ? 0 : ops_.front().name; }
  // The outermost op's stack, or where it has none (autograd's threads run
  // Python-less ops around each backward node) the first open op's that has
  // one; else STREAMCHECK_STACK_NONE if an open op said so, else 0.
  StackId stack() const {
    StackId none = 0;
    for (size_t i = 0; i < open_; ++i) {
      if (ops_[i].stack == STREAMCHECK_STACK_NONE) none = STREAMCHECK_STACK_NONE;
      else if (ops_[i].stack != 0) return ops_[i].stack;
    }
    return none;
  }
  // When the worker's view of this thread's open ops is not what is open
  // here, brings it up to date and takes that as delivered. Call before each
  // record of this thread, `next`, is queued. Where no op is open here, `next`
  // itself closes the worker's (closes_framework_ops: most ops end with
  // nothing nested open, and a record of their own for that would cost the
  // program one more queued record per op); else *out is filled with the
  // kOpenFrameworkOps record to queue first (thread left to the caller) and
  // true is returned.
  bool Publish(TraceRecord* next, TraceRecord* out) {
    if (published_ == open_ && worker_open_ == open_) return false;  // every record passes here
    if (open_ == 0) {
      next->closes_framework_ops = true;
      worker_open_ = 0;
      return false;
    }
    return PublishChanges(out);
  }

 private:
  struct Op {
    StringId name = 0;
    StackId stack = 0;
    std::vector<StreamcheckTensorRegion> regions;
  };
  bool PublishChanges(TraceRecord* out);
  std::vector<Op> ops_;
  size_t open_ = 0;         // ops_[0, open_) are open; the rest keep their capacity for reuse
  size_t published_ = 0;    // ops_[0, published_) are open on the worker as they are here
  size_t worker_open_ = 0;  // how many ops the worker has open for this thread
};

// The calling thread's open framework ops.
FrameworkOpStack& ThisThreadFrameworkOps();

// One thread's open ops' regions, on the analysis worker.
class OpRegionStack {
 public:
  // A kOpenFrameworkOps record of this thread.
  void Apply(const TraceRecord& open_ops);
  // A record of this thread made with no op open (closes_framework_ops).
  void CloseAll() { open_ = 0; }
  bool empty() const { return open_ == 0; }
  // Memory allocated while an op runs is its output or workspace: written.
  void AddFreshBlock(Address base, uint64_t size);
  // Each access whose pointer lies in a region of an open op (innermost op
  // first, smallest region first) takes that region's bytes and mode. Where
  // the open ops' tensors are known, a by-value struct's word (certainty
  // kNone) in none of them is dropped: not a pointer the op's kernel uses.
  void Refine(std::vector<MemoryAccess>* accesses) const;

 private:
  struct Op {
    std::vector<StreamcheckTensorRegion> regions;  // sorted by begin
    uint64_t widest = 0;                           // the largest region's size
    bool tensors = false;                          // the op's own tensors are among the regions
    // The smallest region holding addr, or null. Only regions starting within
    // `widest` below addr can hold it, so ops with hundreds of tensors
    // (_foreach over a model's parameters) take a binary search, not a scan.
    const StreamcheckTensorRegion* Holding(Address addr) const;
    void Add(const StreamcheckTensorRegion& region);
  };
  std::vector<Op> ops_;
  size_t open_ = 0;
};

}  // namespace streamcheck::tracer
