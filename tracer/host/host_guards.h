// The host's accesses to host-visible memory, observed in unmodified
// programs: the guard table (guard_table.h) fed from the tracer's records,
// the SIGSEGV handler (signal_chain.h) turning a guard page's fault into a
// host access record for the engine, and the lifecycle around them (fork,
// exit, `streamcheck run --no-host-guards`). docs/HOST_GUARDS.md says what
// is observed and what is not.
//
// The pieces, by where they run:
//   * the program's threads, in the CUDA callbacks with the tracer's lock
//     held: BeforeQueue takes each record before it is queued (allocations
//     of pinned, registered and managed memory become regions; asynchronous
//     copies, memsets and kernel launches touching them guard their pages);
//   * the program's threads at a CUDA call's entry, without the lock:
//     ForgetAtEntry for a call that frees or unregisters a region, and
//     Suspend/Resume around a synchronous copy or memset that reads or
//     writes host memory itself (the driver may do so on the calling thread);
//   * the analysis worker, after the engine took a record: AfterAnalysis;
//   * the SIGSEGV handler, on whichever thread faulted.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/engine.h"
#include "runtime/trace_record.h"
#include "tracer/host/fault_site.h"
#include "tracer/host/graph_guards.h"
#include "tracer/host/guard_table.h"
#include "tracer/host/guarded_streams.h"

namespace streamcheck::tracer {

class Tracer;

namespace host {

class HostGuards {
 public:
  // Installs the SIGSEGV handler and attaches to the preloaded library
  // unless `wanted` is false; without the library (or without analysis) the
  // guards stay off and say why in their counters. One per process.
  static HostGuards* Start(Tracer& tracer, bool wanted);
  bool on() const { return on_.load(std::memory_order_relaxed); }
  // Whether [begin, end) may hold guarded pages: it meets the span of every
  // region so far (no lock; a region added meanwhile widens it first).
  bool MayGuard(Address begin, Address end) const {
    return on() && end > low_.load(std::memory_order_relaxed) && begin < high_.load(std::memory_order_relaxed);
  }

  // The program's side, tracer lock held: regions from allocations, guards
  // for asynchronous work (the record then carries guards_host_pages); none
  // for a library's own records.
  void BeforeQueue(TraceRecord& r) {
    Guard(r);
    if (on()) streams_.Note(r);
  }
  // At the entry of a call that frees or unregisters host-visible memory
  // (takes the tracer's lock): its pages get back what the guards took.
  void ForgetAtEntry(Address base);
  // Around a CUDA call that reads or writes [begin, begin+size) on the host
  // itself (pages kept in the calling thread's state).
  void Suspend(Address begin, uint64_t size);
  void Resume();
  // At the end of a followed host function, on its thread: the pages its
  // faults opened are guarded again as their pending work wants, so another
  // host function not ordered with it (or the program's thread) that touches
  // them later faults too and is judged against it (a host function's faults
  // would otherwise open the page for every later access unobserved).
  void AfterFollowedHostFunction();
  // The preloaded library: the program is about to mprotect or unmap these bytes.
  void ProgramChanged(Address addr, uint64_t size);

  // Whether the analysis of `r` may open pages the program is about to touch:
  // a host synchronization (`host_waited`) or a successful query whose
  // stream or event holds guarded work (guarded_streams.h). The caller then
  // waits for it, so the pages are open when the call returns instead of
  // faulting one by one (PyTorch's pinned caching allocator queries a
  // block's events and writes the block at once). Tracer lock held.
  bool OpensPagesAfter(const TraceRecord& r, bool host_waited) {
    if (!on() || !(host_waited || ((r.op == OpCode::kEventQuery || r.op == OpCode::kStreamQuery) && r.result == 0)))
      return false;
    if (!table_.HasPendingWork()) {
      if (!streams_.empty()) streams_.Clear();
      return false;
    }
    if (streams_.Covers(r)) return true;
    ++waits_skipped_;
    return false;
  }
  // Synchronizations not waited for although guarded work was pending (on
  // other streams than they order).
  uint64_t waits_skipped() const { return waits_skipped_; }
  // The analysis worker: after the engine took `r` (`processed`: it did not
  // fail on it).
  void AfterAnalysis(TraceRecord& r, Engine& engine, bool processed);

  // Exit: every page restored, no more guarding; the counters for the run.
  void Shutdown();
  std::map<std::string, uint64_t> Counters() const;

  void BeforeFork() { table_.LockForFork(); }
  void AfterForkInParent() { table_.UnlockInParent(); }
  // The child's pages are all restored and it guards nothing (its parent's
  // device work is not its own; a forked child cannot use CUDA anyway).
  void AfterForkInChild();

 private:
  explicit HostGuards(Tracer& tracer) : tracer_(tracer) {}
  enum class Off { kNo, kAskedTo, kNoPreload, kHandlerReplaced, kForkedChild };
  void TurnOff(Off why);
  bool HandlerStillFirst();
  static bool OnGuardFault(siginfo_t* info, ucontext_t* context);
  FaultOrigin OriginOfFault(const FaultSite& site) const;
  // BeforeQueue's guarding: a region for an allocation, guards for work
  // (a graph's at its launches: graph_guards.h).
  void Guard(TraceRecord& r);
  void RangesOf(const TraceRecord& r, OpCode op, bool graph_node, std::vector<GuardTable::Range>* out);
  // A program's access: one kHostAccess record, as if the thread had called us.
  void RecordAccess(const FaultSite& site);
  // Outside the pages of every region there is nothing to guard (no lock).
  bool MaybeInRegion(Address p) const {
    return p >= low_.load(std::memory_order_relaxed) && p < high_.load(std::memory_order_relaxed);
  }
  void WidenSpan(Address base, uint64_t size);

  Tracer& tracer_;
  GuardTable table_;
  std::atomic<bool> on_{false};
  Off off_ = Off::kNo;
  std::atomic<Address> low_{~Address{0}}, high_{0};  // every region's bytes lie inside (never shrinks)
  CodeRanges tracer_code_, cuda_code_;
  // Faults in guarded pages by whose access they were.
  std::atomic<uint64_t> host_accesses_{0}, tracer_faults_{0}, cuda_faults_{0}, dropped_{0};
  uint32_t guards_since_check_ = 0;  // under the tracer's lock: StillFirstEvery
  GuardedStreams streams_;           // under the tracer's lock
  GraphGuards graphs_;               // under the tracer's lock
  uint64_t waits_skipped_ = 0;       // under the tracer's lock
};

}  // namespace host
}  // namespace streamcheck::tracer
