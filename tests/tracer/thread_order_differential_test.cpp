// The differential test's traces (tests/runtime/differential_generator.h)
// with their releases and acquires going through the preloaded library's
// bookkeeping (tracer/preload/thread_order.c) and the tracer's rule for when
// to take from it (ChangesThreadClock), as a traced program's would: the
// engine must find exactly the races of the reference graph.
#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "tests/runtime/differential_check.h"
#include "tracer/host_threads/host_thread_order.h"
#include "tracer/preload/thread_order_core.h"

namespace streamcheck::testing {
namespace {

class PreloadProtocol : public HostOrderProtocol {
 public:
  PreloadProtocol() { streamcheck_order_reset(); }
  void Release(ThreadId thread, int object) override { streamcheck_order_release(Of(thread), Key(object)); }
  void Acquire(ThreadId thread, int object) override { streamcheck_order_acquire(Of(thread), Key(object)); }
  // What the tracer does before each record (tracer.cpp, HostThreadOrder::Before).
  void Before(ThreadId thread, const TraceRecord& r, std::vector<TraceRecord>* out) override {
    streamcheck_thread_order* t = Of(thread);
    if (!t->acquired && !(t->released && ChangesThreadClock(r))) return;
    uint32_t ended = 0;
    uint64_t deps[STREAMCHECK_ORDERED_THREADS];
    int n = 0;
    const int found = streamcheck_order_take(t, ChangesThreadClock(r), &ended, deps, &n);
    TraceRecord before = r;
    before.thread = thread;
    tracer::HostThreadOrder::OrderingRecords(found, ended, deps, n, before,
                                             [out](const TraceRecord& ordering) { out->push_back(ordering); });
  }

 private:
  // A thread is named at its first record; the generator's threads all make records.
  streamcheck_thread_order* Of(ThreadId thread) {
    std::unique_ptr<streamcheck_thread_order>& t = threads_[thread];
    if (!t) {
      t = std::make_unique<streamcheck_thread_order>();
      *t = streamcheck_thread_order{};
      streamcheck_order_name(t.get(), thread);
    }
    return t.get();
  }
  static uintptr_t Key(int object) { return 0x40000 + 64 * static_cast<uintptr_t>(object + 1); }
  std::map<ThreadId, std::unique_ptr<streamcheck_thread_order>> threads_;
};

TEST(ThreadOrderDifferential, EngineWithThePreloadsBookkeepingMatchesTheReference) {
  constexpr int kTraces = 3000;
  int per_thread = 0, racy_per_thread = 0;
  for (uint32_t seed = 1; seed <= kTraces; ++seed) {
    PreloadProtocol protocol;
    const Generated g = Generate(seed, &protocol);
    bool racy = false;
    CheckAgainstReference(g, seed, &racy);
    if (::testing::Test::HasFatalFailure()) return;
    per_thread += g.per_thread;
    racy_per_thread += racy && g.per_thread;
  }
  EXPECT_GT(racy_per_thread, per_thread / 10);
  EXPECT_LT(racy_per_thread, per_thread * 9 / 10);
}

}  // namespace
}  // namespace streamcheck::testing
