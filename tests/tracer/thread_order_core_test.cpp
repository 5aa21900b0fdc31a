// tracer/preload/thread_order.c with made-up threads: clocks, release
// stamps, and what the tracer takes before a thread's records.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/thread_epochs.h"
#include "tracer/preload/thread_order_core.h"

namespace {

using Order = streamcheck_thread_order;

class ThreadOrderCore : public ::testing::Test {
 protected:
  void SetUp() override { streamcheck_order_reset(); }
  Order* Thread(uint32_t id) {
    threads_.push_back(std::make_unique<Order>());
    Order* t = threads_.back().get();
    *t = Order{};
    if (id != 0) {
      EXPECT_TRUE(streamcheck_order_name(t, id));
    }
    return t;
  }
  // What the tracer takes before a record of `t`.
  struct Taken {
    int found = 0;
    uint32_t ended = 0;
    std::vector<uint64_t> deps;
  };
  Taken Take(Order* t, bool changes_clock) {
    Taken out;
    uint64_t deps[STREAMCHECK_ORDERED_THREADS];
    int n = 0;
    out.found = streamcheck_order_take(t, changes_clock, &out.ended, deps, &n);
    if (out.found & STREAMCHECK_ORDER_ACQUIRED) out.deps.assign(deps, deps + n);
    return out;
  }
  std::vector<std::unique_ptr<Order>> threads_;
};

constexpr uintptr_t kMutex = 0x7000, kOther = 0x7100;

TEST_F(ThreadOrderCore, AnAcquireLearnsTheReleasersEpoch) {
  Order* a = Thread(1);
  Order* b = Thread(2);
  streamcheck_order_release(a, kMutex);
  streamcheck_order_acquire(b, kMutex);
  EXPECT_EQ(b->clock[1], 1u);
  const Taken taken = Take(b, false);
  EXPECT_EQ(taken.found, STREAMCHECK_ORDER_ACQUIRED);
  EXPECT_EQ(taken.deps, (std::vector<uint64_t>{streamcheck::ThreadEpochDep(1, 1)}));
  EXPECT_EQ(Take(b, false).found, 0);  // taken once
}

TEST_F(ThreadOrderCore, AThreadThatKnowsNothingReleasesNothing) {
  Order* unnamed = Thread(0);  // no CUDA call yet, nothing acquired
  Order* b = Thread(2);
  streamcheck_order_release(unnamed, kMutex);
  streamcheck_order_acquire(b, kMutex);
  EXPECT_EQ(Take(b, true).found, 0);
}

TEST_F(ThreadOrderCore, AnEpochEndsOnlyWhenTheThreadReleasedAndItsClockMayChange) {
  Order* a = Thread(1);
  EXPECT_EQ(Take(a, true).found, 0);  // nothing released: the epoch needs no end
  streamcheck_order_release(a, kMutex);
  EXPECT_EQ(Take(a, false).found, 0);  // a launch: the clock stays
  const Taken taken = Take(a, true);   // a synchronize
  EXPECT_EQ(taken.found, STREAMCHECK_ORDER_ENDED_EPOCH);
  EXPECT_EQ(taken.ended, 1u);
  EXPECT_EQ(a->epoch, 2u);
  EXPECT_EQ(a->clock[1], 2u);
  // A later acquirer of the old release learns epoch 1, of a new one epoch 2.
  Order* b = Thread(2);
  streamcheck_order_acquire(b, kMutex);
  EXPECT_EQ(b->clock[1], 1u);
  streamcheck_order_release(a, kOther);
  streamcheck_order_acquire(b, kOther);
  EXPECT_EQ(b->clock[1], 2u);
}

TEST_F(ThreadOrderCore, KnowledgePassesOnThroughAThreadThatMakesNoCudaCall) {
  Order* a = Thread(1);
  Order* relay = Thread(0);
  Order* c = Thread(3);
  streamcheck_order_release(a, kMutex);
  streamcheck_order_acquire(relay, kMutex);
  streamcheck_order_release(relay, kOther);
  streamcheck_order_acquire(c, kOther);
  EXPECT_EQ(c->clock[1], 1u);
}

TEST_F(ThreadOrderCore, AnUnchangedStampIsNotJoinedAgain) {
  Order* a = Thread(1);
  Order* b = Thread(2);
  streamcheck_order_release(a, kMutex);
  streamcheck_order_acquire(b, kMutex);
  Take(b, false);
  const uint64_t tag = b->tag;
  streamcheck_order_acquire(b, kMutex);
  EXPECT_EQ(b->tag, tag);
  EXPECT_EQ(b->acquired, 0);
  // Its own release, acquired back: nothing new either.
  streamcheck_order_release(b, kOther);
  streamcheck_order_acquire(b, kOther);
  EXPECT_EQ(b->acquired, 0);
}

TEST_F(ThreadOrderCore, AStampKeepsWhatEveryReleaserKnew) {
  Order* a = Thread(1);
  Order* b = Thread(2);
  Order* c = Thread(3);
  streamcheck_order_release(a, kMutex);  // a semaphore posted by two threads
  streamcheck_order_release(b, kMutex);
  streamcheck_order_acquire(c, kMutex);
  EXPECT_EQ(c->clock[1], 1u);
  EXPECT_EQ(c->clock[2], 1u);
  // b's own release must not pass for "holds exactly b's clock".
  streamcheck_order_acquire(b, kMutex);
  EXPECT_EQ(b->clock[1], 1u);
}

TEST_F(ThreadOrderCore, AForgottenObjectStartsWithoutAStamp) {
  Order* a = Thread(1);
  Order* b = Thread(2);
  streamcheck_order_release(a, kMutex);
  streamcheck_order_forget(kMutex);
  streamcheck_order_acquire(b, kMutex);
  EXPECT_EQ(b->clock[1], 0u);
}

TEST_F(ThreadOrderCore, ObjectsBeyondTheTableShareAStampThatOrdersMore) {
  Order* a = Thread(1);
  Order* b = Thread(2);
  // Far more objects than slots: some overflow, and every release still reaches its acquirer.
  constexpr uintptr_t kObjects = 20000;
  for (uintptr_t i = 0; i < kObjects; ++i) streamcheck_order_release(a, 0x100000 + 64 * i);
  EXPECT_GT(streamcheck_order_overflowed(), 0u);
  for (uintptr_t i = 0; i < kObjects; i += 997) {
    Order probe{};
    streamcheck_order_acquire(&probe, 0x100000 + 64 * i);
    EXPECT_EQ(probe.clock[1], 1u) << i;
  }
  streamcheck_order_acquire(b, 0x100000);
  EXPECT_EQ(b->clock[1], 1u);
}

TEST_F(ThreadOrderCore, ThreadsBeyondTheClocksWidthHaveNoPlace) {
  Order t{};
  EXPECT_FALSE(streamcheck_order_name(&t, STREAMCHECK_ORDERED_THREADS));
  EXPECT_TRUE(streamcheck_order_name(&t, STREAMCHECK_ORDERED_THREADS - 1));
}

}  // namespace
