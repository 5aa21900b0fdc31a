// MPI operations (engine_mpi.cpp) by the MPI standard's "Nonblocking
// Communication": a blocking call uses its buffer on the calling thread
// during the call; a nonblocking one from the call until its completion is
// seen. Each case of CuSan's categories, racy and fixed: a send after a
// kernel without a synchronization, a kernel on an MPI_Irecv buffer before
// the wait, the wait in the wrong place (after a synchronized kernel), and
// a persistent request started twice.
#include <gtest/gtest.h>

#include "tests/runtime/finding_matchers.h"
#include "tests/runtime/trace_builder.h"

namespace streamcheck::testing {
namespace {

constexpr Handle kS1 = 0x10;
constexpr Address kBuf = 0x1000;
constexpr ThreadId kMain = 1, kOther = 2;

TraceBuilder KernelWrites(MemoryKind kind = MemoryKind::kDevice) {
  TraceBuilder t;
  t.PerThreadClocks();
  t.OnThread(kMain).StreamCreate(kS1, kStreamNonBlocking).Malloc(kBuf, 256, kind);
  t.Kernel(kS1, "produce", {W(kBuf, 256)});
  return t;
}

TEST(Mpi, SendAfterAKernelWithoutASynchronizeRaces) {
  for (const MemoryKind kind : {MemoryKind::kDevice, MemoryKind::kPinnedHost, MemoryKind::kManaged}) {
    TraceBuilder t = KernelWrites(kind);
    t.MpiStart("MPI_Send", 1, {R(kBuf, 256)}).MpiComplete("MPI_Send", 1);
    auto fs = t.Run();
    ASSERT_EQ(fs.size(), 1u) << Summary(fs);
    EXPECT_EQ(fs[0].rule, "host-device-race");
    EXPECT_EQ(fs[0].kind, FindingKind::kReadAfterWrite);
    EXPECT_NE(fs[0].message.find("MPI_Send"), std::string::npos) << fs[0].message;
    EXPECT_NE(fs[0].reason.find("API synchronization behavior"), std::string::npos) << fs[0].reason;
    EXPECT_NE(fs[0].fix.find("cudaStreamSynchronize"), std::string::npos) << fs[0].fix;
    EXPECT_EQ(fs[0].accesses[1].stream_kind, "mpi");
  }
}

TEST(Mpi, SendAfterTheStreamIsSynchronizedIsClean) {
  TraceBuilder t = KernelWrites();
  t.StreamSync(kS1).MpiStart("MPI_Isend", 1, {R(kBuf, 256)}).MpiComplete("MPI_Wait", 1);
  auto fs = t.Run();
  EXPECT_TRUE(fs.empty()) << Summary(fs);
}

// A stream wait orders streams, not MPI: an event waited on by another
// stream does not order the host's send.
TEST(Mpi, AStreamWaitDoesNotOrderTheSend) {
  TraceBuilder t = KernelWrites();
  t.StreamCreate(0x20).EventCreate(0x30).Record(0x30, kS1).Wait(0x20, 0x30);
  t.MpiStart("MPI_Isend", 1, {R(kBuf, 256)}).MpiComplete("MPI_Wait", 1);
  auto fs = t.Run();
  EXPECT_EQ(CountRule(fs, "host-device-race"), 1u) << Summary(fs);
}

TraceBuilder Receive() {
  TraceBuilder t;
  t.PerThreadClocks();
  t.OnThread(kMain).StreamCreate(kS1, kStreamNonBlocking).Malloc(kBuf, 256);
  t.MpiStart("MPI_Irecv", 7, {W(kBuf, 256)});
  return t;
}

TEST(Mpi, AKernelOnTheIrecvBufferBeforeTheWaitRaces) {
  TraceBuilder t = Receive();
  t.Kernel(kS1, "consume", {R(kBuf, 256)}).MpiComplete("MPI_Wait", 7);
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "host-device-race");
  EXPECT_EQ(fs[0].kind, FindingKind::kReadAfterWrite);
  EXPECT_EQ(fs[0].order_gap, "mpi-not-completed");
  EXPECT_NE(fs[0].reason.find("Nonblocking Communication"), std::string::npos) << fs[0].reason;
  EXPECT_NE(fs[0].fix.find("MPI_Wait"), std::string::npos) << fs[0].fix;
}

// One-sided: an MPI_Get's origin buffer is MPI's until the window's
// synchronization (MPI_Win_fence here) completes it at the origin; the
// finding names that synchronization, not a request's wait.
TEST(Mpi, AKernelOnAnMpiGetBufferBeforeTheFenceRaces) {
  TraceBuilder t;
  t.PerThreadClocks();
  t.OnThread(kMain).StreamCreate(kS1, kStreamNonBlocking).Malloc(kBuf, 256, MemoryKind::kManaged);
  t.MpiStart("MPI_Get", 9, {W(kBuf, 256)});
  t.Kernel(kS1, "consume", {R(kBuf, 256)}).MpiComplete("MPI_Win_fence", 9);
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].order_gap, "mpi-not-completed");
  EXPECT_NE(fs[0].reason.find("MPI_Win_fence"), std::string::npos) << fs[0].reason;
  EXPECT_NE(fs[0].reason.find("One-Sided Communications"), std::string::npos) << fs[0].reason;
  EXPECT_EQ(fs[0].reason.find("MPI_Wait"), std::string::npos) << fs[0].reason;
  EXPECT_NE(fs[0].fix.find("access epoch"), std::string::npos) << fs[0].fix;
}

TEST(Mpi, AKernelOnAnMpiGetBufferAfterTheFenceIsClean) {
  TraceBuilder t;
  t.PerThreadClocks();
  t.OnThread(kMain).StreamCreate(kS1, kStreamNonBlocking).Malloc(kBuf, 256, MemoryKind::kManaged);
  t.MpiStart("MPI_Get", 9, {W(kBuf, 256)}).MpiComplete("MPI_Win_fence", 9);
  t.Kernel(kS1, "consume", {R(kBuf, 256)});
  auto fs = t.Run();
  EXPECT_TRUE(fs.empty()) << Summary(fs);
}

TEST(Mpi, AKernelAfterTheWaitIsClean) {
  TraceBuilder t = Receive();
  t.MpiComplete("MPI_Wait", 7).Kernel(kS1, "consume", {R(kBuf, 256)});
  auto fs = t.Run();
  EXPECT_TRUE(fs.empty()) << Summary(fs);
}

// The wait in the wrong place: the kernel's stream is synchronized before
// the wait, yet the kernel ran while the receive could still write.
TEST(Mpi, TheWaitAfterTheKernelsSynchronizeIsStillTooLate) {
  TraceBuilder t = Receive();
  t.Kernel(kS1, "consume", {R(kBuf, 256)}).StreamSync(kS1).MpiComplete("MPI_Wait", 7);
  EXPECT_EQ(t.Run().size(), 1u);
}

// A test that said "not yet" orders nothing: only the completion does.
TEST(Mpi, ATestThatReturnedFalseOrdersNothing) {
  TraceBuilder t = Receive();
  t.Kernel(kS1, "consume", {R(kBuf, 256)});  // after an MPI_Test with flag = 0: no record
  t.MpiComplete("MPI_Test", 7);
  EXPECT_EQ(t.Run().size(), 1u);
}

// The completion is the waiting thread's: another thread is not after it.
TEST(Mpi, ACompletionOrdersOnlyTheThreadThatSawIt) {
  TraceBuilder t = Receive();
  t.MpiComplete("MPI_Wait", 7);
  t.OnThread(kOther).Kernel(kS1, "consume", {R(kBuf, 256)});
  EXPECT_EQ(t.Run().size(), 1u);
}

// Persistent requests: each MPI_Start is an operation of its own; the lane
// of a completed one is used again without ordering the next one early.
TEST(Mpi, APersistentRequestStartedAgainBeforeTheKernelsSynchronizeRaces) {
  TraceBuilder t = KernelWrites();
  t.StreamSync(kS1);
  t.MpiStart("MPI_Start", 1, {R(kBuf, 256)}).MpiComplete("MPI_Wait", 1);
  t.Kernel(kS1, "produce again", {W(kBuf, 256)});
  t.MpiStart("MPI_Start", 2, {R(kBuf, 256)}).MpiComplete("MPI_Wait", 2);
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_NE(fs[0].message.find("produce again"), std::string::npos) << fs[0].message;
}

TEST(Mpi, APersistentRequestStartedAfterTheSynchronizeIsClean) {
  TraceBuilder t = KernelWrites();
  for (uint32_t round = 1; round <= 100; ++round) {
    t.StreamSync(kS1);
    t.MpiStart("MPI_Start", round, {R(kBuf, 256)}).MpiComplete("MPI_Wait", round);
    t.Kernel(kS1, "produce again", {W(kBuf, 256)});
  }
  EngineStats stats;
  auto fs = t.Run(&stats);
  EXPECT_TRUE(fs.empty()) << Summary(fs);
  EXPECT_TRUE(stats.anomalies.empty());
}

// Freeing a buffer a receive may still write.
TEST(Mpi, FreeingTheBufferOfAPendingReceiveIsFreeWhileInUse) {
  TraceBuilder t = Receive();
  t.Free(kBuf);
  auto fs = t.Run();
  EXPECT_EQ(CountRule(fs, "free-while-in-use"), 1u) << Summary(fs);
}

TEST(Mpi, ACompletionWithoutItsStartIsAnAnomaly) {
  TraceBuilder t;
  t.OnThread(kMain).MpiComplete("MPI_Wait", 3);
  EngineStats stats;
  t.Run(&stats);
  EXPECT_EQ(stats.anomalies.count("mpi: a completion whose operation's start was not seen"), 1u);
}

}  // namespace
}  // namespace streamcheck::testing
