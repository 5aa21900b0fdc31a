// Which streams hold guarded device work, on the program's side: what
// decides whether a host synchronization waits for the analysis worker
// (host_guards.h, OpensPagesAfter).
//
// The wait exists only so that pages the synchronization orders the host
// after are open when the call returns, instead of faulting one by one. A
// synchronization whose stream (or event) holds no guarded work cannot open
// any page, so it does not wait: its record is analysed behind the program,
// and a page it would have opened after all (an ordering this table does not
// follow) faults once and is judged by the engine in trace order, which
// places the fault after the synchronization: the verdict is the same, only
// later. So the table errs freely in both directions; it only chooses who
// pays, the program's wait or a fault.
//
// Followed: an operation that guarded pages marks its stream; an event
// recorded on a marked stream carries the mark, and a stream that waits for
// it takes it; a stream's synchronization or successful query clears its
// mark; a device-wide one (or none pending at all) clears every mark. The
// legacy default stream's implicit ordering with blocking streams is taken
// as device-wide. Under the tracer's lock.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <unordered_set>

#include "runtime/trace_record.h"

namespace streamcheck::tracer::host {

class GuardedStreams {
 public:
  // Every record the program's side sees, after the guards marked it
  // (TraceRecord::guards_host_pages).
  void Note(const TraceRecord& r);
  // Whether `r`, a host synchronization or successful query, may order its
  // thread after guarded work (and so open pages); clears what it covers.
  bool Covers(const TraceRecord& r);
  // No guarded work is pending anywhere: nothing to follow.
  void Clear();
  bool empty() const { return streams_.empty(); }
  // A stream as the engine tells them apart: the per-thread default stream
  // is one per thread.
  static uint64_t KeyOf(Handle stream, ThreadId thread);

 private:
  static bool IsLegacy(Handle stream);
  bool AnyLegacy() const { return legacy_marked_; }

  std::unordered_set<uint64_t> streams_;
  // Events recorded while their stream was marked: true.
  std::unordered_map<Handle, bool> events_;
  bool legacy_marked_ = false;
};

}  // namespace streamcheck::tracer::host
