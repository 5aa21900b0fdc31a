#include "tracer/analysis_worker.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace streamcheck::tracer {
namespace {

TraceRecord Numbered(uint64_t n) {
  TraceRecord r;
  r.op = OpCode::kKernelLaunch;
  r.size = n + 1;
  r.timestamp_ns = 1000 * n;
  r.accesses.push_back({n, 8, AccessMode::kWrite});  // a buffer that must travel with the record
  return r;
}

constexpr size_t kSmallRing = 4096;  // some 20 launch records: producers wrap it and find it full

// Records from several producers (serialized as the tracer's lock does) are
// analysed once each, in the order they were queued, with their contents.
TEST(AnalysisWorker, AnalysesEveryRecordInQueueOrder) {
  std::vector<uint64_t> seen;
  std::atomic<bool> on_worker{true};
  AnalysisWorker worker(
      [&](TraceRecord& r) {
        on_worker = on_worker && AnalysisWorker::OnWorkerThread();
        ASSERT_EQ(r.accesses.size(), 1u);
        EXPECT_EQ(r.accesses[0].addr + 1, r.size);
        EXPECT_EQ(r.timestamp_ns, 1000 * r.accesses[0].addr);
        seen.push_back(r.accesses[0].addr);
      },
      kSmallRing);
  std::mutex producer_lock;
  std::atomic<uint64_t> next{0};
  std::vector<uint64_t> queued;
  std::vector<std::thread> producers;
  for (int t = 0; t < 4; ++t)
    producers.emplace_back([&] {
      for (int i = 0; i < 5000; ++i) {
        std::lock_guard<std::mutex> lock(producer_lock);
        const uint64_t n = next++;
        queued.push_back(n);
        worker.Push(Numbered(n));
      }
    });
  for (auto& p : producers) p.join();
  worker.Stop();
  EXPECT_FALSE(AnalysisWorker::OnWorkerThread());
  EXPECT_TRUE(on_worker);
  EXPECT_EQ(seen, queued);
}

// WaitFor returns only once the record it names was analysed, even when the
// worker is slow; later records may still be pending.
TEST(AnalysisWorker, WaitForReturnsAfterThatRecordIsAnalysed) {
  std::atomic<uint64_t> analysed{0};
  AnalysisWorker worker([&](TraceRecord&) {
    std::this_thread::sleep_for(std::chrono::microseconds(300));  // longer than the spin before sleeping
    analysed.fetch_add(1);
  });
  uint64_t third = 0;
  for (uint64_t i = 1; i <= 3; ++i) third = worker.Push(Numbered(i));
  for (uint64_t i = 4; i <= 50; ++i) worker.Push(Numbered(i));
  worker.WaitFor(third);
  EXPECT_GE(analysed.load(), 3u);
  EXPECT_LT(analysed.load(), 50u);
  worker.Stop();
  EXPECT_EQ(analysed.load(), 50u);
}

// A worker asleep (no records for a while) wakes for the next one.
TEST(AnalysisWorker, WakesAfterSleeping) {
  std::atomic<int> analysed{0};
  AnalysisWorker worker([&](TraceRecord&) { analysed.fetch_add(1); });
  worker.WaitFor(worker.Push(Numbered(1)));
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // well past the spin: asleep now
  worker.WaitFor(worker.Push(Numbered(2)));
  EXPECT_EQ(analysed.load(), 2);
}

// Findings are live: the worker takes records on its own (it looks at the
// producers' position after each nap), with no producer waiting for it.
TEST(AnalysisWorker, AnalysesWithoutBeingWaitedFor) {
  std::atomic<int> analysed{0};
  AnalysisWorker worker([&](TraceRecord&) { analysed.fetch_add(1); });
  for (uint64_t i = 0; i < 3; ++i) {
    worker.Push(Numbered(i));
    std::this_thread::sleep_for(std::chrono::milliseconds(3));  // past the longest nap after the first
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (analysed.load() < 3 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(analysed.load(), 3);
}

// The crash path: waits for what is queued, within its limit.
TEST(AnalysisWorker, DrainForCrashWaitsWithinItsLimit) {
  std::atomic<bool> release{false};
  AnalysisWorker worker([&](TraceRecord&) {
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  worker.Push(Numbered(1));
  EXPECT_FALSE(worker.DrainForCrash(/*timeout_ms=*/20));  // held up: gives up
  release = true;
  EXPECT_TRUE(worker.DrainForCrash(/*timeout_ms=*/5000));
}

// A record too large for the ring (a long command line, say) is analysed in
// its place in the order, and the records around it keep their contents.
TEST(AnalysisWorker, RecordLargerThanTheRingKeepsItsPlace) {
  std::vector<std::string> seen;
  AnalysisWorker worker(
      [&](TraceRecord& r) {
        seen.push_back(r.op == OpCode::kProcessInfo ? r.text : std::to_string(r.timestamp_ns));
      },
      kSmallRing);
  TraceRecord large;
  large.op = OpCode::kProcessInfo;
  large.text = std::string(3 * kSmallRing, 'x');
  large.timestamp_ns = 1500;  // between its neighbours: the delta encoding must skip it
  worker.Push(Numbered(1));
  worker.Push(large);
  worker.Push(Numbered(2));
  worker.Stop();
  EXPECT_EQ(seen, (std::vector<std::string>{"1000", large.text, "2000"}));
}

// Stop analyses what is still queued, and is idempotent.
TEST(AnalysisWorker, StopAnalysesWhatIsQueued) {
  int analysed = 0;
  AnalysisWorker worker([&](TraceRecord&) { ++analysed; });
  for (int i = 0; i < 1000; ++i) worker.Push(Numbered(i));
  worker.Stop();
  EXPECT_EQ(analysed, 1000);
  EXPECT_FALSE(worker.running());
  worker.Stop();
}

}  // namespace
}  // namespace streamcheck::tracer
