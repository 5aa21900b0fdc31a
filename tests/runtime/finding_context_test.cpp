// What a finding carries for reports besides its two accesses: where each
// stream and event came from, why no edge exists (as a code), and the
// synchronization that did happen between the accesses.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/runtime/finding_matchers.h"
#include "tests/runtime/trace_builder.h"

namespace streamcheck::testing {
namespace {

constexpr Handle kS1 = 0x10, kS2 = 0x20, kE = 0xe1, kBuf = 0x1000, kHost = 0x9000;

// The builder gives the k-th call stack id k (from 1); these give stack ids
// a frame "app.cu:<line>" so origins resolve to lines.
std::vector<TraceRecord> WithLines(const TraceBuilder& t) {
  std::vector<TraceRecord> all;
  all.push_back(StringDefinition(1000, "/src/app.cu"));
  const std::vector<TraceRecord> records = t.records();
  for (const TraceRecord& r : records) {
    if (r.stack == 0) continue;
    TraceRecord stack;
    stack.op = OpCode::kDefineStack;
    stack.id = r.stack;
    stack.frames = {{0, 1000, 100 + r.stack, 0}};  // call k sits on line 100 + k
    all.push_back(stack);
  }
  all.insert(all.end(), records.begin(), records.end());
  return all;
}

std::vector<Finding> RunWithLines(const TraceBuilder& t) {
  CollectingSink sink;
  Engine engine(&sink);
  for (const TraceRecord& r : WithLines(t)) engine.Process(r);
  engine.Finish();
  return sink.findings;
}

TEST(FindingContext, StreamsSayWhereTheyWereCreatedAndFirstUsed) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking).Malloc(kBuf, 128);  // calls 1-3
  t.Kernel(kS1, "producer", {W(kBuf, 128)}).Kernel(kS2, "consumer", {R(kBuf, 128)});                  // calls 4-5
  const auto fs = RunWithLines(t);
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  const FindingAccess& a = fs[0].accesses[0];
  EXPECT_EQ(a.stream_kind, "created");
  EXPECT_EQ(a.stream_origin.ordinal, 1u);
  EXPECT_EQ(a.stream_origin.created_by, "cudaStreamCreateWithFlags");
  ASSERT_EQ(a.stream_origin.created_at.size(), 1u);
  EXPECT_EQ(a.stream_origin.created_at[0].line, 101u);
  EXPECT_EQ(a.stream_origin.first_op, "producer");
  ASSERT_EQ(a.stream_origin.first_used_at.size(), 1u);
  EXPECT_EQ(a.stream_origin.first_used_at[0].line, 104u);
  const FindingAccess& b = fs[0].accesses[1];
  EXPECT_EQ(b.stream_origin.ordinal, 2u);
  EXPECT_EQ(b.stream_origin.created_at[0].line, 102u);
  EXPECT_EQ(fs[0].order_gap, "no-event-wait");
  EXPECT_TRUE(fs[0].syncs.empty());
}

TEST(FindingContext, TheFirstUseIsTheFirstOperationNotTheLatest) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).Malloc(kBuf, 128);
  t.Kernel(kS1, "warmup", {}).FrameworkOp("aten::zero_");             // call 3: the first use
  t.Kernel(0, "producer", {W(kBuf, 128)}).Kernel(kS1, "consumer", {R(kBuf, 128)});
  const auto fs = RunWithLines(t);
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].accesses[0].stream_kind, "legacy");
  EXPECT_EQ(fs[0].accesses[0].stream_origin.ordinal, 0u);
  EXPECT_EQ(fs[0].accesses[1].stream_origin.first_op, "aten::zero_") << "the framework op names the first use";
  EXPECT_EQ(fs[0].accesses[1].stream_origin.first_used_at[0].line, 103u);
  EXPECT_EQ(fs[0].order_gap, "non-blocking-stream");
}

TEST(FindingContext, StreamsUsedWithoutACreateAreImplicit) {
  TraceBuilder t;
  t.Malloc(kBuf, 128).Kernel(kS1, "producer", {W(kBuf, 128)}).Kernel(kS2, "consumer", {R(kBuf, 128)});
  const auto fs = RunWithLines(t);
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].accesses[0].stream_kind, "implicit");
  EXPECT_EQ(fs[0].accesses[0].stream_origin.ordinal, 0u);
  EXPECT_TRUE(fs[0].accesses[0].stream_origin.created_at.empty());
}

// Racy: the event captured the write but the consumer's stream never waited.
TEST(FindingContext, TheRecordThatWasNotWaitedForIsShown) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking).EventCreate(kE).Malloc(kBuf, 128);
  t.Kernel(kS1, "producer", {W(kBuf, 128)}).Record(kE, kS1).Kernel(kS2, "consumer", {R(kBuf, 128)});
  const auto fs = RunWithLines(t);
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].order_gap, "event-not-waited");
  ASSERT_EQ(fs[0].syncs.size(), 1u);
  const FindingAccess& record = fs[0].syncs[0];
  EXPECT_EQ(record.role, "event record");
  EXPECT_EQ(record.event, kE);
  EXPECT_EQ(record.stream_handle, kS1);
  EXPECT_EQ(record.event_origin.ordinal, 1u);
  EXPECT_EQ(record.event_origin.created_by, "cudaEventCreate");
  ASSERT_EQ(record.event_origin.created_at.size(), 1u);
  EXPECT_EQ(record.event_origin.created_at[0].line, 103u);
  EXPECT_TRUE(record.stack.empty()) << "the tracer takes no stack for a record (FindingsCiteStackOf)";
}

// Fixed: with the wait there is no finding.
TEST(FindingContext, TheWaitedRecordOrders) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking).EventCreate(kE).Malloc(kBuf, 128);
  t.Kernel(kS1, "producer", {W(kBuf, 128)}).Record(kE, kS1).Wait(kS2, kE).Kernel(kS2, "consumer", {R(kBuf, 128)});
  EXPECT_TRUE(RunWithLines(t).empty());
}

// Racy: the host synchronized another stream than the one that wrote.
TEST(FindingContext, AHostSyncOfTheWrongStreamIsShown) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking);
  t.Malloc(kHost, 64, MemoryKind::kPinnedHost).Malloc(kBuf, 64);
  t.Copy(kS2, kHost, kBuf, 64, CopyKind::kDeviceToHost, true).StreamSync(kS1).HostRead(kHost, 4);
  const auto fs = RunWithLines(t);
  ASSERT_EQ(CountRule(fs, "host-device-race"), 1u) << Summary(fs);
  const Finding& f = fs[0];
  EXPECT_EQ(f.order_gap, "host-not-synchronized");
  ASSERT_EQ(f.syncs.size(), 1u);
  EXPECT_EQ(f.syncs[0].role, "stream synchronize");
  EXPECT_TRUE(f.syncs[0].on_host);
  EXPECT_EQ(f.syncs[0].stream_handle, kS1) << "the stream the host waited for";
  EXPECT_EQ(f.syncs[0].stream_origin.ordinal, 1u);
}

// Fixed: synchronizing the stream that wrote orders the read.
TEST(FindingContext, AHostSyncOfTheRightStreamOrders) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking);
  t.Malloc(kHost, 64, MemoryKind::kPinnedHost).Malloc(kBuf, 64);
  t.Copy(kS2, kHost, kBuf, 64, CopyKind::kDeviceToHost, true).StreamSync(kS2).HostRead(kHost, 4);
  EXPECT_TRUE(RunWithLines(t).empty());
}

// What ordered nothing is not shown as a synchronization: a query that said
// "not ready", a wait on an event never recorded; and at most six are kept.
TEST(FindingContext, OnlySynchronizationThatHappenedIsShownAndNotTooMuch) {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking).EventCreate(kE).Malloc(kBuf, 128);
  t.Kernel(kS1, "producer", {W(kBuf, 128)});
  t.StreamQuery(kS1, /*cudaErrorNotReady=*/600).Wait(kS2, 0xbad);
  for (int i = 0; i < 9; ++i) t.Record(kE, kS1);
  t.Kernel(kS2, "consumer", {R(kBuf, 128)});
  const auto fs = RunWithLines(t);
  ASSERT_EQ(CountRule(fs, "cross-stream-race"), 1u) << Summary(fs);
  const Finding& f = *std::find_if(fs.begin(), fs.end(), [](const Finding& x) { return x.rule == "cross-stream-race"; });
  ASSERT_EQ(f.syncs.size(), 6u);
  for (const FindingAccess& s : f.syncs) EXPECT_EQ(s.role, "event record");
  EXPECT_GT(f.syncs.back().trace_index, f.syncs.front().trace_index) << "oldest first, the latest kept";
}

TEST(FindingContext, PerThreadDefaultStreamsOfTwoThreads) {
  TraceBuilder t;
  t.Malloc(kBuf, 128).Kernel(kCudaStreamPerThread, "a", {W(kBuf, 128)});
  t.OnThread(2).Kernel(kCudaStreamPerThread, "b", {W(kBuf, 128)});
  const auto fs = RunWithLines(t);
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].order_gap, "per-thread-streams");
  EXPECT_EQ(fs[0].accesses[0].stream_kind, "per-thread");
  EXPECT_EQ(fs[0].accesses[1].stream_kind, "per-thread");
}

}  // namespace
}  // namespace streamcheck::testing
