// The engine, the trace file and the findings store run on a thread of their
// own. A CUDA call's callback does only what must happen while the call is in
// progress (read its arguments, capture its stack) and queues the record; the
// program's thread then goes on with its caches undisturbed by the engine's
// shadow tables. Records are analysed in exactly the order they were queued.
//
// Queuing must cost the program less than the engine would: a record travels
// as a copy of its bytes (some 200 for a launch) in a ring, so the program's
// thread writes a few cache lines and reads nothing the worker writes; it
// never waits on nor wakes the worker. The worker looks at how far the
// program has written at most once per nap, not after every record: each
// look moves the program's cache line to the worker's core, and the
// program's next record must take it back (one cross-core miss, waited for
// at the tracer lock's release) - once per nap instead of once per record.
// The worker takes what arrived in batches.
//
// Nothing is lost on the way out: the tracer waits for the queue at host
// synchronizations (so findings up to the last one are on disk when the
// program ends with _exit), at exit, before fork and, within a time limit, in
// the crash handler.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/trace_record.h"

namespace streamcheck::tracer {

class AnalysisWorker {
 public:
  using Analyze = std::function<void(TraceRecord&)>;
  // The ring holds `capacity_bytes`; a producer finding it full waits for
  // room, so its memory stays bounded however fast the program runs: the
  // program is held, never a record dropped (a dropped record would be a
  // missed ordering, hence false findings). How often and how long is
  // counted for the run's summary.
  explicit AnalysisWorker(Analyze analyze, size_t capacity_bytes = size_t{4} << 20);
  ~AnalysisWorker();  // Stop()
  AnalysisWorker(const AnalysisWorker&) = delete;
  AnalysisWorker& operator=(const AnalysisWorker&) = delete;

  // Producers call one at a time (the tracer's lock). Returns the record's
  // sequence number, for WaitFor.
  uint64_t Push(const TraceRecord& record);
  // Blocks until every record up to `sequence` has been analysed.
  void WaitFor(uint64_t sequence);
  // Blocks until every record pushed so far has been analysed (the producers' side).
  void Drain() { WaitFor(records_pushed_); }
  // Analyses what is queued, then ends the thread. Idempotent; Push must not
  // be called afterwards.
  void Stop();
  bool running() const { return running_.load(std::memory_order_relaxed); }
  // For a fatal signal handler: waits (sleeping, async-signal-safe) at most
  // `timeout_ms` for the queue to empty. True when it did.
  bool DrainForCrash(int timeout_ms) const;
  // Held by the worker while it analyses a batch: holding it (before fork,
  // or to flush the trace from a crash handler) keeps the worker between records.
  std::mutex& busy() { return busy_; }
  // True on the worker's own thread (it must never wait for itself).
  static bool OnWorkerThread();
  // Records at which a producer waited for room (a full ring, or a record
  // too large for it waiting for the worker to catch up), and the time.
  struct Holds {
    uint64_t count = 0, nanoseconds = 0;
  };
  Holds holds() const { return holds_; }

 private:
  void Run();
  // Analyses the records in [*position, end) of the ring.
  void AnalyseBatch(uint64_t* position, uint64_t end);
  // Wakes a napping worker and sleeps until `done` holds.
  template <typename Done>
  void WaitUntil(Done done);
  // WaitUntil for a producer held by the ring, counted in holds_.
  template <typename Done>
  void WaitForRoom(Done done);
  // A record too large for the ring: analysed on the producer's thread, in
  // order (once the worker has caught up, holding busy_).
  void AnalyseInPlace(const TraceRecord& record);

  // Read on every record, written only at start and Stop().
  const Analyze analyze_;
  // Not zero-filled: only bytes written are read, and an untouched page costs
  // nothing until the ring first reaches it (a short process never does).
  const size_t ring_size_;
  const std::unique_ptr<uint8_t[]> ring_;
  std::atomic<bool> running_{false};
  // Producer side (under the tracer's lock), on cache lines of its own: a
  // line the worker writes would cost the program a miss on every record.
  // write_position_ is the end of the last whole record: the worker reads it
  // once per nap, a crash handler at any time.
  alignas(64) std::atomic<uint64_t> write_position_{0};  // bytes written since the start, ring position = % size
  uint64_t consumed_seen_ = 0;                           // consumed_ when last read (it only grows)
  uint64_t records_pushed_ = 0;
  Holds holds_;
  // Worker side.
  alignas(64) TraceRecord decoded_;
  // Written by the worker; producers read them only when the ring looks full
  // or they wait.
  alignas(64) std::atomic<uint64_t> consumed_{0};   // bytes the worker is done with
  std::atomic<uint64_t> analysed_{0};               // records analysed
  alignas(64) std::atomic<uint32_t> waiters_{0};
  std::mutex sleep_mutex_;  // guards hurry_ and stopping_ for the two condition variables
  bool hurry_ = false;      // a producer waits: no napping
  bool stopping_ = false;
  std::condition_variable wake_, progress_;
  std::mutex busy_;
  std::thread thread_;
};

}  // namespace streamcheck::tracer
