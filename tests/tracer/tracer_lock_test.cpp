#include "tracer/tracer_lock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace streamcheck::tracer {
namespace {

// Sixteen threads, as many as the robustness scenario launches from, each
// doing a read-modify-write of plain memory under the lock: any overlap of
// two critical sections loses an increment.
TEST(TracerLock, KeepsCriticalSectionsApart) {
  TracerLock lock;
  uint64_t counter = 0;
  std::atomic<int> inside{0};
  std::atomic<bool> overlapped{false};
  constexpr int kThreads = 16, kRounds = 20000;
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&] {
      for (int r = 0; r < kRounds; ++r) {
        std::lock_guard<TracerLock> guard(lock);
        if (inside.fetch_add(1) != 0) overlapped = true;
        const uint64_t seen = counter;
        std::atomic_signal_fence(std::memory_order_seq_cst);
        counter = seen + 1;
        inside.fetch_sub(1);
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_FALSE(overlapped);
  EXPECT_EQ(counter, uint64_t{kThreads} * kRounds);
}

TEST(TracerLock, TryLockFailsWhileHeldAndSucceedsAfter) {
  TracerLock lock;
  ASSERT_TRUE(lock.try_lock());
  bool other_got_it = true;
  std::thread([&] { other_got_it = lock.try_lock(); }).join();
  EXPECT_FALSE(other_got_it);
  lock.unlock();
  std::thread([&] { other_got_it = lock.try_lock(); }).join();
  EXPECT_TRUE(other_got_it);
}

// A holder that keeps the lock for long (the worker's drain before fork):
// the waiters get past spinning and yielding into naps, and still take the
// lock once it is free, each in turn.
TEST(TracerLock, WaitersOutlastALongHolder) {
  TracerLock lock;
  lock.lock();
  std::atomic<int> acquired{0};
  std::vector<std::thread> waiters;
  for (int i = 0; i < 4; ++i)
    waiters.emplace_back([&] {
      std::lock_guard<TracerLock> guard(lock);
      acquired.fetch_add(1);
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(acquired.load(), 0);
  lock.unlock();
  for (std::thread& t : waiters) t.join();
  EXPECT_EQ(acquired.load(), 4);
}

}  // namespace
}  // namespace streamcheck::tracer
