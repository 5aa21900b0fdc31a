// Random traces for the differential tests, with a brute-force reference
// built alongside: the happens-before graph made explicit (one node per host
// call and per device operation), written independently of the engine.
//
// Host threads: in half the traces they have their own clocks
// (kHostThreadOrder): each thread's calls are a chain of its own, and threads
// are ordered only by synchronization objects they release and acquire. How
// releases and acquires become records is the HostOrderProtocol's business:
// the engine's own tests say it at once (EagerProtocol below); the tracer's
// drive the preloaded library's bookkeeping (tests/tracer). In the other half
// host calls are one chain in trace order (what the engine assumes of a
// trace that does not say how its threads synchronize).
#pragma once

#include <bitset>
#include <map>
#include <random>
#include <vector>

#include "runtime/thread_epochs.h"
#include "runtime/trace_record.h"

namespace streamcheck::testing {

constexpr int kMaxNodes = 1024;
using Reach = std::bitset<kMaxNodes>;

struct RefAccess {
  int node;
  bool host;
  Address begin, end;
  bool writes;
  uint64_t trace_index;
  Address certain_end;  // [begin, certain_end): the bytes MemoryAccess::certainty says are certain
  bool unknown_mode;    // neither known to read nor to write (AccessMode::kUnknown)
};

class Reference {
 public:
  int NewNode(const std::vector<int>& preds) {
    const int n = static_cast<int>(reach_.size());
    Reach r;
    for (int p : preds) {
      if (p < 0) continue;
      r |= reach_[p];
      r.set(p);
    }
    reach_.push_back(r);
    return n;
  }
  bool HappensBefore(int a, int b) const { return a == b || reach_[b].test(a); }
  size_t size() const { return reach_.size(); }

 private:
  std::vector<Reach> reach_;
};

// Turns what threads release and acquire into records (thread_epochs.h).
class HostOrderProtocol {
 public:
  virtual ~HostOrderProtocol() = default;
  virtual void Release(ThreadId thread, int object) = 0;
  virtual void Acquire(ThreadId thread, int object) = 0;
  // The records that must precede `r`, a record of `thread`.
  virtual void Before(ThreadId thread, const TraceRecord& r, std::vector<TraceRecord>* out) = 0;
};

// Every release ends the releasing thread's epoch at once, every acquire
// names every epoch the object holds: the engine's semantics, said plainly.
class EagerProtocol : public HostOrderProtocol {
 public:
  void Release(ThreadId thread, int object) override {
    Thread& t = threads_[thread];
    pending_[thread].push_back(Record(OpCode::kThreadRelease, thread, t.epoch));
    std::map<ThreadId, uint32_t>& stamp = stamps_[object];
    for (const auto& [id, epoch] : t.known) stamp[id] = std::max(stamp[id], epoch);
    stamp[thread] = std::max(stamp[thread], t.epoch);
    ++t.epoch;
  }
  void Acquire(ThreadId thread, int object) override {
    TraceRecord acquire = Record(OpCode::kThreadAcquire, thread, 0);
    for (const auto& [id, epoch] : stamps_[object]) {
      if (id == thread) continue;
      acquire.deps.push_back(ThreadEpochDep(id, epoch));
      uint32_t& known = threads_[thread].known[id];
      known = std::max(known, epoch);
    }
    if (!acquire.deps.empty()) pending_[thread].push_back(acquire);
  }
  void Before(ThreadId thread, const TraceRecord&, std::vector<TraceRecord>* out) override {
    std::vector<TraceRecord>& pending = pending_[thread];
    out->insert(out->end(), pending.begin(), pending.end());
    pending.clear();
  }

 private:
  struct Thread {
    uint32_t epoch = 1;
    std::map<ThreadId, uint32_t> known;
  };
  static TraceRecord Record(OpCode op, ThreadId thread, uint32_t epoch) {
    TraceRecord r;
    r.op = op;
    r.thread = thread;
    r.id = epoch;
    return r;
  }
  std::map<ThreadId, Thread> threads_;
  std::map<int, std::map<ThreadId, uint32_t>> stamps_;
  std::map<ThreadId, std::vector<TraceRecord>> pending_;
};

struct Generated {
  std::vector<TraceRecord> records;
  std::vector<RefAccess> accesses;
  Reference ref;
  bool per_thread = false;
};

// A random trace and its reference graph. `protocol` serves traces whose
// host threads have their own clocks (seed % 4 >= 2).
Generated Generate(uint32_t seed, HostOrderProtocol* protocol);

}  // namespace streamcheck::testing
