// Shadow memory precision (exact byte ranges) and finding bookkeeping
// (deduplication with counts, confidence, fingerprints).
#include <gtest/gtest.h>

#include "runtime/shadow_memory.h"
#include "tests/runtime/finding_matchers.h"
#include "tests/runtime/trace_builder.h"

namespace streamcheck::testing {
namespace {

constexpr Handle kS1 = 0x10, kS2 = 0x20;
constexpr Address kBuf = 0x10000;

TraceBuilder Given() {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking).Malloc(kBuf, 4096);
  return t;
}

TEST(ShadowPrecision, DisjointSlicesOfOneAllocationNeverConflict) {
  auto t = Given();
  for (int i = 0; i < 8; ++i) {
    const Handle s = i % 2 ? kS2 : kS1;
    t.Kernel(s, "chunk", {W(kBuf + i * 512, 512)}).Kernel(s, "chunk_read", {R(kBuf + i * 512, 512)});
  }
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());
}

TEST(ShadowPrecision, PartialOverlapIsReportedExactly) {
  auto t = Given();
  t.Kernel(kS1, "w", {W(kBuf, 1000)}).Kernel(kS2, "r", {R(kBuf + 990, 100)});
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].accesses[0].address, kBuf + 990);  // the overlapping bytes
  EXPECT_EQ(fs[0].accesses[0].size, 10u);
  EXPECT_EQ(fs[0].buffer.address, kBuf);
}

TEST(ShadowPrecision, AdjacentButNotOverlapping) {
  auto t = Given();
  t.Kernel(kS1, "w", {W(kBuf, 1000)}).Kernel(kS2, "r", {R(kBuf + 1000, 100)});
  EXPECT_TRUE(t.Run().empty());
}

TEST(ShadowMemoryUnit, MergesIntervalsBackAfterSplits) {
  ShadowMemory shadow;
  VectorClock clock;
  std::vector<ShadowConflict> conflicts;
  auto never_host = [](Lane) { return false; };
  clock.Set(0, 1);
  shadow.Access(0, 100, {0, 1, 1, ShadowKind::kWrite}, clock, never_host, &conflicts);
  shadow.Access(10, 10, {0, 1, 1, ShadowKind::kWrite}, clock, never_host, &conflicts);
  EXPECT_EQ(shadow.interval_count(), 1u);
  clock.Set(0, 2);
  shadow.Access(0, 100, {0, 2, 2, ShadowKind::kWrite}, clock, never_host, &conflicts);
  EXPECT_EQ(shadow.interval_count(), 1u);
  EXPECT_TRUE(conflicts.empty());
}

// ForgetFrees drops the frees in a range and keeps every other access: a
// later access conflicts with an unordered write there, not with the free.
TEST(ShadowMemoryUnit, ForgetFreesKeepsTheOtherAccesses) {
  ShadowMemory shadow;
  VectorClock clock;
  std::vector<ShadowConflict> conflicts;
  auto never_host = [](Lane) { return false; };
  clock.Set(0, 1);
  shadow.Free(0, 64, {0, 1, 1, ShadowKind::kFree}, clock, never_host, &conflicts, {0, 1, 1, ShadowKind::kFree});
  shadow.Access(100, 50, {0, 1, 2, ShadowKind::kWrite}, clock, never_host, &conflicts);  // lane 0's write
  shadow.ForgetFrees(0, 200);
  VectorClock other;  // lane 1, after nothing of lane 0
  other.Set(1, 1);
  shadow.Access(0, 200, {1, 1, 3, ShadowKind::kRead}, other, never_host, &conflicts);
  ASSERT_EQ(conflicts.size(), 1u);
  EXPECT_EQ(conflicts[0].earlier.kind, ShadowKind::kWrite);
  EXPECT_EQ(conflicts[0].begin, 100u);
}

TEST(Findings, IdenticalRacesAreOneFindingWithACount) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking).Malloc(kBuf, 4096);
  std::vector<TraceRecord> records = t.records();
  // Replay the same two call sites 100 times (a loop in the program).
  TraceBuilder body;
  body.Kernel(kS1, "producer", {W(kBuf, 64)}).Kernel(kS2, "consumer", {R(kBuf, 64)});
  std::vector<TraceRecord> loop = body.records();
  CollectingSink sink;
  Engine engine(&sink);
  for (const auto& r : records) engine.Process(r);
  for (int i = 0; i < 100; ++i)
    for (const auto& r : loop) engine.Process(r);
  engine.Finish();
  // Read-after-write in every iteration; write-after-read from each iteration's
  // read to the next iteration's write.
  ASSERT_EQ(sink.findings.size(), 2u) << Summary(sink.findings);
  EXPECT_EQ(sink.findings[0].kind, FindingKind::kReadAfterWrite);
  EXPECT_EQ(sink.findings[0].count, 100u);
  EXPECT_EQ(sink.findings[1].kind, FindingKind::kWriteAfterRead);
  EXPECT_EQ(sink.findings[1].count, 99u);
  EXPECT_EQ(engine.stats().finding_occurrences, 199u);
}

TEST(Findings, UnknownAccessModeLowersConfidence) {
  auto t = Given();
  t.Kernel(kS1, "maybe_writer", {U(kBuf, 64)}).Kernel(kS2, "reader", {R(kBuf, 64)});
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].confidence, Confidence::kPossible);
  EXPECT_NE(fs[0].reason.find("unknown"), std::string::npos);
}

TEST(Findings, FingerprintIgnoresAddressesAndHandles) {
  auto make = [](Handle s1, Handle s2, Address buf) {
    TraceBuilder t;
    t.StreamCreate(s1, kStreamNonBlocking).StreamCreate(s2, kStreamNonBlocking).Malloc(buf, 64);
    t.Kernel(s1, "producer", {W(buf, 64)}).Kernel(s2, "consumer", {R(buf, 64)});
    return t.Run();
  };
  auto a = make(0x10, 0x20, 0x1000), b = make(0x77, 0x88, 0x5000);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(a[0].fingerprint, b[0].fingerprint);
  EXPECT_FALSE(a[0].fingerprint.empty());
}

TEST(Findings, MemoryDoesNotGrowWithTraceLength) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking).EventCreate(0xe1).Malloc(kBuf, 4096);
  TraceBuilder body;
  body.Kernel(kS1, "p", {W(kBuf, 2048)}).Record(0xe1, kS1).Wait(kS2, 0xe1).Kernel(kS2, "c", {R(kBuf, 4096)});
  body.Record(0xe1, kS2).Wait(kS1, 0xe1);
  auto run = [&](int iterations) {
    Engine engine(nullptr);
    for (const auto& r : t.records()) engine.Process(r);
    for (int i = 0; i < iterations; ++i)
      for (const auto& r : body.records()) engine.Process(r);
    engine.Finish();
    return engine.stats();
  };
  EngineStats short_run = run(10), long_run = run(10000);
  EXPECT_EQ(short_run.shadow_intervals, long_run.shadow_intervals);
  EXPECT_EQ(long_run.findings, 0u);
}

}  // namespace
}  // namespace streamcheck::testing
