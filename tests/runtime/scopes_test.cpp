// Per-test scopes (runtime/scope_table.h, docs/SCOPES.md): an operation
// belongs to the scopes open on its thread when it was issued, a race names
// the scopes of both sides, the same race in two scopes is two findings, and
// a scope ended twice or never is an anomaly, never a crash.
#include <gtest/gtest.h>

#include <map>

#include "tests/runtime/finding_matchers.h"
#include "tests/runtime/trace_builder.h"

namespace streamcheck::testing {
namespace {

constexpr Handle kS1 = 0x10, kS2 = 0x20, kBuf = 0x1000, kPinned = 0x90000;
constexpr uint64_t kBytes = 4096;
constexpr StackId kWriteSite = 1000, kReadSite = 1001;

// A copy on non-blocking s1 writes the buffer, a kernel on s2 reads it; each
// at the same call site every time (a test's body run twice).
void Race(TraceBuilder& t) {
  t.Copy(kS1, kBuf, kPinned, kBytes, CopyKind::kHostToDevice, true).AtStack(kWriteSite);
  t.Kernel(kS2, "consume", {R(kBuf, kBytes)}).AtStack(kReadSite);
  t.StreamSync(kS1).StreamSync(kS2);
}

TraceBuilder Streams() {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking);
  t.Malloc(kBuf, kBytes).Malloc(kPinned, kBytes, MemoryKind::kPinnedHost);
  return t;
}

// `t` finds one race of `rule`, its sides in these scopes.
void ExpectOneRace(const TraceBuilder& t, const std::string& rule, const std::string& earlier,
                   const std::string& later) {
  const auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, rule);
  EXPECT_EQ(fs[0].accesses[0].scope, earlier);
  EXPECT_EQ(fs[0].accesses[1].scope, later);
}

TEST(Scopes, EachSideCarriesTheScopeOpenOnItsThreadWhenIssued) {
  TraceBuilder t = Streams();
  // The copy is left in flight by one test and read by the next: the device
  // runs it later, but it was issued in the first.
  t.ScopeBegin("tests/test_io.py::test_fill");
  t.Copy(kS1, kBuf, kPinned, kBytes, CopyKind::kHostToDevice, true);
  t.ScopeEnd();
  t.ScopeBegin("tests/test_io.py::test_consume");
  t.Kernel(kS2, "consume", {R(kBuf, kBytes)});
  t.ScopeEnd();
  ExpectOneRace(t, "cross-stream-race", "tests/test_io.py::test_fill", "tests/test_io.py::test_consume");
}

TEST(Scopes, TheSameRaceInTwoScopesIsTwoFindings) {
  TraceBuilder scoped = Streams();
  for (const char* test : {"test_a", "test_b", "test_a"}) {
    scoped.ScopeBegin(test);
    Race(scoped);
    scoped.ScopeEnd();
  }
  const auto fs = scoped.Run();
  ASSERT_EQ(fs.size(), 2u) << Summary(fs);
  EXPECT_EQ(fs[0].accesses[1].scope, "test_a");
  EXPECT_EQ(fs[0].count, 2u);
  EXPECT_EQ(fs[1].accesses[1].scope, "test_b");
  EXPECT_EQ(fs[1].count, 1u);
  EXPECT_NE(fs[0].fingerprint, fs[1].fingerprint);

  // Outside every scope the same race is one finding, and its fingerprint is
  // what it was before scopes existed (no scope enters it).
  TraceBuilder plain = Streams();
  Race(plain);
  Race(plain);
  const auto unscoped = plain.Run();
  ASSERT_EQ(unscoped.size(), 1u);
  EXPECT_EQ(unscoped[0].count, 2u);
  EXPECT_EQ(unscoped[0].accesses[1].scope, "");
  EXPECT_NE(unscoped[0].fingerprint, fs[0].fingerprint);
}

TEST(Scopes, NestedScopesAreAPathAndTheOuterResumes) {
  TraceBuilder t = Streams();
  t.ScopeBegin("Suite.Test").ScopeBegin("warm-up");
  t.Copy(kS1, kBuf, kPinned, kBytes, CopyKind::kHostToDevice, true);
  t.ScopeEnd();
  t.Kernel(kS2, "consume", {R(kBuf, kBytes)});
  t.ScopeEnd();
  ExpectOneRace(t, "cross-stream-race", "Suite.Test > warm-up", "Suite.Test");
}

TEST(Scopes, AScopeIsItsThreadsOwn) {
  TraceBuilder t = Streams();
  t.OnThread(1).ScopeBegin("main thread's test");
  t.OnThread(2).ScopeBegin("loader thread's batch");
  t.Copy(kS1, kBuf, kPinned, kBytes, CopyKind::kHostToDevice, true).ScopeEnd();
  t.OnThread(1).Kernel(kS2, "consume", {R(kBuf, kBytes)}).ScopeEnd();
  ExpectOneRace(t, "cross-stream-race", "loader thread's batch", "main thread's test");
}

// PyTorch's autograd engine runs a test's backward kernels on a thread of
// its own, which opens no scope: they are the running test's, the scope
// opened last and still open; once it is closed, nobody's.
TEST(Scopes, AThreadWithoutScopesWorksInTheScopeOpenedLast) {
  TraceBuilder t = Streams();
  t.OnThread(1).ScopeBegin("test_backward");
  t.OnThread(2).Copy(kS1, kBuf, kPinned, kBytes, CopyKind::kHostToDevice, true);  // autograd's thread
  t.OnThread(1).Kernel(kS2, "consume", {R(kBuf, kBytes)}).ScopeEnd();
  t.OnThread(2).Kernel(kS1, "overwrite", {W(kBuf, kBytes)});
  const auto fs = t.Run();
  ASSERT_EQ(fs.size(), 2u) << Summary(fs);
  EXPECT_EQ(fs[0].accesses[0].scope, "test_backward");
  EXPECT_EQ(fs[0].accesses[1].scope, "test_backward");
  EXPECT_EQ(fs[1].accesses[0].scope, "test_backward");
  EXPECT_EQ(fs[1].accesses[1].scope, "");
}

// The host's own access (a guard page's fault) belongs to the scope open on
// the accessing thread at the access.
TEST(Scopes, AHostAccessBelongsToTheScopeOpenAtTheAccess) {
  TraceBuilder t = Streams();
  t.ScopeBegin("test_prefetch");
  t.Copy(kS1, kPinned, kBuf, kBytes, CopyKind::kDeviceToHost, true);
  t.ScopeEnd().ScopeBegin("test_next");
  t.HostRead(kPinned, 8);
  t.ScopeEnd();
  ExpectOneRace(t, "host-device-race", "test_prefetch", "test_next");
}

TEST(Scopes, MismatchesAreCountedNeverACrash) {
  TraceBuilder t = Streams();
  t.ScopeEnd();  // none open
  for (int i = 0; i < 70; ++i) t.ScopeBegin("level " + std::to_string(i));
  Race(t);
  for (int i = 0; i < 70; ++i) t.ScopeEnd();
  t.ScopeEnd();  // ended twice
  t.ScopeBegin("left open");
  EngineStats stats;
  const auto fs = t.Run(&stats);
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  // Past 64 levels a scope counts as the one it is in.
  EXPECT_TRUE(fs[0].accesses[1].scope.ends_with(" > level 63")) << fs[0].accesses[1].scope;
  EXPECT_EQ(stats.anomalies["scope ended with none open on its thread"], 2u);
  EXPECT_EQ(stats.anomalies["scope nested deeper than 64 (its operations count as the enclosing scope's)"], 6u);
  EXPECT_EQ(stats.anomalies["scope still open at the end"], 1u);
}

// What streamcheck_scope_errors asks: the findings whose later side was made
// in a scope (or one nested in it), with their counts so far.
TEST(Scopes, TheEngineListsTheFindingsOfAScope) {
  TraceBuilder t = Streams();
  t.ScopeBegin("test_a");
  t.Copy(kS1, kBuf, kPinned, kBytes, CopyKind::kHostToDevice, true);
  t.Kernel(kS2, "consume", {R(kBuf, kBytes)});
  t.ScopeBegin("inner");
  t.Kernel(kS1, "overwrite", {W(kBuf, kBytes)});  // races with the read on s2 in test_a
  const std::vector<TraceRecord> first = t.records();
  CollectingSink sink;
  Engine engine(&sink);
  for (const TraceRecord& r : first) engine.Process(r);
  const uint32_t inner = engine.OpenScope(1);
  EXPECT_NE(inner, 0u);
  EXPECT_EQ(engine.OpenScope(2), inner) << "a thread with none of its own works in the last opener's";
  std::map<uint64_t, uint64_t> in_inner, everywhere;
  engine.ForEachFindingInScope(inner, [&](uint64_t id, uint64_t count) { in_inner[id] = count; });
  engine.ForEachFindingInScope(0, [&](uint64_t id, uint64_t count) { everywhere[id] = count; });
  ASSERT_EQ(sink.findings.size(), 2u) << Summary(sink.findings);
  EXPECT_EQ(in_inner.size(), 1u);
  EXPECT_EQ(in_inner.begin()->first, sink.ids[1]);
  EXPECT_EQ(sink.findings[1].accesses[1].scope, "test_a > inner");
  EXPECT_EQ(everywhere.size(), 2u);
}

}  // namespace
}  // namespace streamcheck::testing
