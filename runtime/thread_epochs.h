// How host threads come to know what other host threads know.
//
// Each host thread has its own clock: a synchronization (a stream sync, a
// successful query, ...) orders only the thread that made it. Threads are
// ordered with each other the way ThreadSanitizer orders them: a thread that
// releases a synchronization object (unlocks a mutex, posts a semaphore,
// creates a thread, ...) passes what it knows to the thread that acquires the
// object next. The preloaded library observes those operations
// (tracer/preload/thread_order.h) and counts, per thread, epochs: the spans
// between the points where the thread's clock changes after it released
// something. An acquire names the epochs of other threads that the acquiring
// thread is now after (kThreadAcquire); the clock a thread had in an epoch is
// kept when the epoch ends (kThreadRelease), because by the time the acquire
// arrives that thread may have learnt more, which the acquirer must not.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>

#include "runtime/ids.h"
#include "runtime/trace_record.h"
#include "runtime/vector_clock.h"

namespace streamcheck {

// kThreadAcquire's deps: one per (thread, epoch) the acquiring thread is now after.
inline Handle ThreadEpochDep(ThreadId thread, uint32_t epoch) { return (Handle{thread} << 32) | epoch; }
inline ThreadId ThreadOfDep(Handle dep) { return static_cast<ThreadId>(dep >> 32); }
inline uint32_t EpochOfDep(Handle dep) { return static_cast<uint32_t>(dep); }

// Whether the engine can change a host thread's clock when it processes a
// record of that kind for the thread: a synchronization, a host access, an
// allocation or free, a copy the host takes part in or waits for. The tracer
// asks before each record: a thread that released something during its
// current epoch ends the epoch (kThreadRelease) before such a record, so the
// clock kept for the epoch is the one the thread released. Saying true where
// the engine changes nothing costs a record; saying false where it changes
// the clock would let an acquirer learn what the thread knew only later.
bool ChangesThreadClock(const TraceRecordFields& r);

// One host thread's ended epochs: the clock it had in each, most recent
// last. A clock is kept as its own entry plus a clock shared by the epochs
// between which the thread only advanced its own entry (its host accesses
// and allocations), so a thread that releases after every call costs a copy
// of its clock only when it synchronized in between.
class ThreadEpochs {
 public:
  // Ended epochs kept per thread. An acquire of an older one (a release that
  // nobody acquired for that long) joins the oldest kept instead: a later
  // point of the thread, which orders more, never less.
  static constexpr size_t kKept = 4096;

  // `clock` (the thread's, whose own entry is `own_lane`) ends `epoch`.
  // `joins` counts the joins the thread's clock has had, telling whether
  // anything but its own entry changed since the previous epoch ended.
  void End(uint32_t epoch, const VectorClock& clock, Lane own_lane, uint64_t joins);

  enum class Found { kEnded, kCurrent, kOlderThanKept };
  // Joins into `into` the clock the thread had in `epoch`: the kept clock of
  // an ended epoch, or `current` (the thread's clock now) for the epoch it is
  // still in, which has not ended because the thread's clock has not changed
  // since it released.
  Found JoinEpoch(uint32_t epoch, const VectorClock& current, Lane own_lane, VectorClock* into) const;

  size_t kept() const { return ended_.size(); }
  // The ended epochs and the clocks they keep (each shared clock once).
  size_t HeapBytes() const;

 private:
  struct Ended {
    uint32_t epoch;
    Clock own;  // the thread's own entry then
    std::shared_ptr<const VectorClock> rest;
  };
  std::deque<Ended> ended_;  // epochs in increasing order, contiguous
  std::shared_ptr<const VectorClock> rest_;
  uint64_t rest_joins_ = ~uint64_t{0};
};

}  // namespace streamcheck
