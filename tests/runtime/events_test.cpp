// Events: record captures a stream's work so far; a wait orders after the most
// recent record before it; re-record replaces; a never-recorded event orders nothing.
#include <gtest/gtest.h>

#include "tests/runtime/finding_matchers.h"
#include "tests/runtime/trace_builder.h"

namespace streamcheck::testing {
namespace {

constexpr Handle kS1 = 0x10, kS2 = 0x20, kE = 0xe1, kBuf = 0x1000;

TraceBuilder TwoStreams() {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking).EventCreate(kE).Malloc(kBuf, 128);
  return t;
}

TEST(Events, RecordThenWaitOrders) {
  auto t = TwoStreams();
  t.Kernel(kS1, "producer", {W(kBuf, 128)}).Record(kE, kS1).Wait(kS2, kE).Kernel(kS2, "consumer", {R(kBuf, 128)});
  EXPECT_TRUE(t.Run().empty());
}

TEST(Events, RecordBeforeTheWriteDoesNotCoverIt) {
  auto t = TwoStreams();
  t.Record(kE, kS1).Kernel(kS1, "producer", {W(kBuf, 128)}).Wait(kS2, kE).Kernel(kS2, "consumer", {R(kBuf, 128)});
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].kind, FindingKind::kReadAfterWrite);
}

TEST(Events, WaitUsesTheMostRecentRecordBeforeIt) {
  // Wait happens after the first record; re-recording later does not move it.
  auto t = TwoStreams();
  t.Kernel(kS1, "first", {W(kBuf, 64)}).Record(kE, kS1).Wait(kS2, kE);
  t.Kernel(kS1, "second", {W(kBuf + 64, 64)}).Record(kE, kS1);
  t.Kernel(kS2, "consumer", {R(kBuf, 128)});
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].accesses[0].op, "second");
  EXPECT_EQ(fs[0].accesses[1].address, kBuf);
  // The reason names the event that does capture the write but was not waited on.
  EXPECT_NE(fs[0].reason.find("0xe1"), std::string::npos) << fs[0].reason;
}

TEST(Events, ReRecordReplacesTheCapture) {
  auto t = TwoStreams();
  t.Kernel(kS1, "first", {W(kBuf, 128)}).Record(kE, kS1);
  t.Kernel(kS1, "second", {W(kBuf, 128)}).Record(kE, kS1);
  t.Wait(kS2, kE).Kernel(kS2, "consumer", {R(kBuf, 128)});
  EXPECT_TRUE(t.Run().empty());
}

// The shape of ConcurrentIssue.SixteenThreadsKeepTheirOrderAndTheirEdges
// (tests/tracer/), reduced from its trace: a writer thread writes and records
// the same event every round; a reader thread waits for it, then reads, but
// in one round reads without the wait. Whether that read races depends on
// where the previous round's wait falls: after the writer's next record, it
// takes that capture (the latest when the wait is made), which orders the
// read (no race); before it, the read is unordered.
TraceBuilder TwoRoundsOnTwoThreads(bool waited_before_next_record) {
  auto t = TwoStreams();
  t.Malloc(kBuf + 0x1000, 128);
  t.OnThread(2).Kernel(kS1, "write_round_16", {W(kBuf, 128)}).Record(kE, kS1);
  if (waited_before_next_record) t.OnThread(3).Wait(kS2, kE);
  t.OnThread(2).Kernel(kS1, "write_round_17", {W(kBuf + 0x1000, 128)}).Record(kE, kS1);
  if (!waited_before_next_record) t.OnThread(3).Wait(kS2, kE);
  t.OnThread(3).Kernel(kS2, "read_round_16", {R(kBuf, 128)});
  t.OnThread(3).Kernel(kS2, "read_round_17", {R(kBuf + 0x1000, 128)});  // no wait of its own
  return t;
}

TEST(Events, AWaitOnAnotherThreadAfterTheNextRecordOrdersTheNextRound) {
  EXPECT_TRUE(TwoRoundsOnTwoThreads(/*waited_before_next_record=*/false).Run().empty());
}

TEST(Events, AWaitOnAnotherThreadBeforeTheNextRecordLeavesTheNextRoundUnordered) {
  auto fs = TwoRoundsOnTwoThreads(/*waited_before_next_record=*/true).Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].kind, FindingKind::kReadAfterWrite);
  EXPECT_EQ(fs[0].accesses[0].op, "write_round_17");
  EXPECT_EQ(fs[0].accesses[1].op, "read_round_17");
}

TEST(Events, WaitOnNeverRecordedEventOrdersNothingAndIsFlagged) {
  auto t = TwoStreams();
  t.Kernel(kS1, "producer", {W(kBuf, 128)}).Wait(kS2, kE).Kernel(kS2, "consumer", {R(kBuf, 128)});
  auto fs = t.Run();
  EXPECT_EQ(CountRule(fs, "wait-on-unrecorded-event"), 1u) << Summary(fs);
  EXPECT_EQ(CountRule(fs, "cross-stream-race"), 1u) << Summary(fs);
}

// The finding's words are made only when it is new (ReportSingle's
// FindingWords): the first wait's finding says what and why, and the waits
// after it, from the same call site, count into it.
TEST(Events, AWaitOnANeverRecordedEventSaysWhyOnceAndCountsTheRest) {
  auto t = TwoStreams();
  for (int i = 0; i < 5; ++i) t.Wait(kS2, kE).AtStack(900);  // one call site, in a loop
  t.EventSync(kE);
  auto fs = t.Run();
  ASSERT_EQ(CountRule(fs, "wait-on-unrecorded-event"), 2u) << Summary(fs);
  EXPECT_EQ(fs[0].message, "cudaStreamWaitEvent on an event that was never recorded");
  EXPECT_EQ(fs[0].reason,
            "the event had no cudaEventRecord before this call, so it returns at once and the stream waits for "
            "nothing");
  EXPECT_EQ(fs[0].count, 5u);
  EXPECT_EQ(fs[1].message, "cudaEventSynchronize on an event that was never recorded");
  EXPECT_EQ(fs[1].reason,
            "the event had no cudaEventRecord before this call, so it returns at once and the host waits for nothing");
  EXPECT_EQ(fs[1].count, 1u);
}

TEST(Events, WaitBeforeRecordIsFlaggedEvenIfRecordedLater) {
  auto t = TwoStreams();
  t.Wait(kS2, kE).Kernel(kS1, "producer", {W(kBuf, 128)}).Record(kE, kS1).Kernel(kS2, "consumer", {R(kBuf, 128)});
  auto fs = t.Run();
  EXPECT_EQ(CountRule(fs, "wait-on-unrecorded-event"), 1u);
  EXPECT_EQ(CountRule(fs, "cross-stream-race"), 1u);
}

TEST(Events, EventSynchronizeOnNeverRecordedEventIsFlagged) {
  auto t = TwoStreams();
  t.Copy(kS1, 0x9000, kBuf, 128, CopyKind::kDeviceToHost, true).EventSync(kE).HostRead(0x9000, 128);
  auto fs = t.Run();
  EXPECT_EQ(CountRule(fs, "wait-on-unrecorded-event"), 1u) << Summary(fs);
  EXPECT_EQ(CountRule(fs, "host-device-race"), 1u) << Summary(fs);
}

TEST(Events, ForkJoinAcrossThreeStreams) {
  constexpr Handle kS3 = 0x30, kE2 = 0xe2, kE3 = 0xe3;
  auto t = TwoStreams();
  t.StreamCreate(kS3, kStreamNonBlocking).EventCreate(kE2).EventCreate(kE3);
  t.Kernel(kS1, "init", {W(kBuf, 128)}).Record(kE, kS1).Wait(kS2, kE).Wait(kS3, kE);
  t.Kernel(kS2, "left", {RW(kBuf, 64)}).Kernel(kS3, "right", {RW(kBuf + 64, 64)});
  t.Record(kE2, kS2).Record(kE3, kS3).Wait(kS1, kE2).Wait(kS1, kE3);
  t.Kernel(kS1, "combine", {R(kBuf, 128)});
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());
}

TEST(Events, UnsynchronizedElapsedTimeIsFlagged) {
  constexpr Handle kStart = 0xa1, kStop = 0xa2;
  TraceBuilder t;
  t.StreamCreate(kS1).EventCreate(kStart).EventCreate(kStop).Malloc(kBuf, 64);
  t.Record(kStart, kS1).Kernel(kS1, "work", {W(kBuf, 64)}).Record(kStop, kS1).ElapsedTime(kStart, kStop, 600);
  EXPECT_EQ(CountRule(t.Run(), "unsynchronized-timing"), 1u);

  TraceBuilder fixed;
  fixed.StreamCreate(kS1).EventCreate(kStart).EventCreate(kStop).Malloc(kBuf, 64);
  fixed.Record(kStart, kS1).Kernel(kS1, "work", {W(kBuf, 64)}).Record(kStop, kS1).EventSync(kStop);
  fixed.ElapsedTime(kStart, kStop, 0);
  EXPECT_TRUE(fixed.Run().empty());
}

}  // namespace
}  // namespace streamcheck::testing
