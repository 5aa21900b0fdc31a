// The tracer's lock: what every locked callback (each kernel launch among
// them) takes to put its record in the one order the engine needs.
//
// Why not std::mutex: its unlock is an atomic read-modify-write (it must see
// whether a sleeper needs waking), and on x86 that waits until every store
// made under the lock has left the store buffer. A launch's record and its
// copy into the analysis worker's ring are stores to lines the driver's own
// launch work has just pushed out of the caches, so that wait was the
// largest single step of a launch's exit callback on the GPU machines (about
// a quarter of it, read with the time-stamp counter between its steps).
// Here unlocking is a plain release store, which x86 lets drain in the
// background. Part of the wait moves to the driver's next atomic
// instruction, so the gain is small but measurable (the figures are in
// tests/gpu/bench/results/README.md). The price: a waiter cannot be woken, so it spins, then yields, then naps. The
// lock is held for a callback's few hundred nanoseconds, or for the worker's
// drain around fork() and exit, where waiters nap.
#pragma once

#include <sched.h>
#include <time.h>

#include <atomic>

namespace streamcheck::tracer {

class TracerLock {
 public:
  // BasicLockable and Lockable: std::lock_guard and std::unique_lock take it.
  void lock() {
    if (!locked_.exchange(true, std::memory_order_acquire)) [[likely]]
      return;
    LockContended();
  }
  bool try_lock() {
    return !locked_.load(std::memory_order_relaxed) && !locked_.exchange(true, std::memory_order_acquire);
  }
  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  // Spin while the holder is likely inside a callback, yield while it may
  // be descheduled, then nap: a holder draining the worker can take
  // milliseconds, and an idle waiter must not take a core from it.
  __attribute__((noinline)) void LockContended() {
    for (unsigned attempt = 0;;) {
      while (locked_.load(std::memory_order_relaxed)) {
        if (attempt < kSpins) {
#if defined(__x86_64__)
          __builtin_ia32_pause();
#endif
        } else if (attempt < kSpins + kYields) {
          sched_yield();
        } else {
          const timespec nap{0, kNapNanoseconds};
          nanosleep(&nap, nullptr);
        }
        ++attempt;
      }
      if (!locked_.exchange(true, std::memory_order_acquire)) return;
    }
  }
  // Some 10 us of spinning: tens of callbacks' worth.
  static constexpr unsigned kSpins = 256, kYields = 64;
  static constexpr long kNapNanoseconds = 20000;

  std::atomic<bool> locked_{false};
};

}  // namespace streamcheck::tracer
