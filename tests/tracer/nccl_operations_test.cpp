// tracer/libraries/nccl/nccl_operations.h: the bytes each NCCL call reads
// and writes (nccl.h's definitions, in-place variants included), and when
// its operation is issued (groups).
#include "tracer/libraries/nccl/nccl_operations.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace streamcheck::tracer {
namespace {

constexpr int32_t kFloat32 = 7, kFloat16 = 6, kInt64 = 4, kFloat8 = 11;
constexpr uint64_t kSend = 0x10000, kRecv = 0x80000, kStream = 0x5000;

StreamcheckNcclCall Call(StreamcheckNcclFunction function, uint64_t send, uint64_t recv, uint64_t count,
                         int32_t root = -1, int32_t rank = 0, int32_t nranks = 4, int32_t datatype = kFloat32) {
  StreamcheckNcclCall c{};
  c.function = function;
  c.name = "nccl-call";
  c.sendbuff = send;
  c.recvbuff = recv;
  c.count = count;
  c.datatype = datatype;
  c.root = root;
  c.stream = kStream;
  c.nranks = nranks;
  c.rank = rank;
  c.device = 0;
  return c;
}

MemoryAccess Read(uint64_t a, uint64_t n) { return {a, n, AccessMode::kRead}; }
MemoryAccess Write(uint64_t a, uint64_t n) { return {a, n, AccessMode::kWrite}; }
MemoryAccess ReadWrite(uint64_t a, uint64_t n) { return {a, n, AccessMode::kReadWrite}; }

std::vector<MemoryAccess> Accesses(const StreamcheckNcclCall& call) {
  NcclOperation op;
  std::string problem;
  EXPECT_TRUE(DescribeNcclOperation(call, &op, &problem)) << problem;
  EXPECT_EQ(op.stream, kStream);
  return op.accesses;
}

using Expected = std::vector<MemoryAccess>;

TEST(NcclOperations, DatatypeSizes) {
  EXPECT_EQ(NcclDataTypeSize(0), 1u);        // ncclInt8
  EXPECT_EQ(NcclDataTypeSize(kFloat16), 2u);
  EXPECT_EQ(NcclDataTypeSize(kFloat32), 4u);
  EXPECT_EQ(NcclDataTypeSize(kInt64), 8u);
  EXPECT_EQ(NcclDataTypeSize(9), 2u);        // ncclBfloat16
  EXPECT_EQ(NcclDataTypeSize(kFloat8), 1u);  // ncclFloat8e5m2
  EXPECT_EQ(NcclDataTypeSize(12), 0u);
  EXPECT_EQ(NcclDataTypeSize(-1), 0u);
}

TEST(NcclOperations, AllReduceReadsSendWritesReceiveOrBothInPlace) {
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_ALL_REDUCE, kSend, kRecv, 100)), (Expected{Read(kSend, 400), Write(kRecv, 400)}));
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_ALL_REDUCE, kRecv, kRecv, 100, -1, 0, 4, kFloat16)),
            (Expected{ReadWrite(kRecv, 200)}));
}

TEST(NcclOperations, BroadcastRootSendsOthersReceive) {
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_BROADCAST, kSend, kRecv, 10, /*root=*/1, /*rank=*/1)),
            (Expected{Read(kSend, 40), Write(kRecv, 40)}));
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_BROADCAST, kRecv, kRecv, 10, 1, 1)), (Expected{Read(kRecv, 40)}));
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_BROADCAST, kSend, kRecv, 10, 1, 2)), (Expected{Write(kRecv, 40)}));
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_BCAST, kRecv, kRecv, 10, 0, 0)), (Expected{Read(kRecv, 40)}));
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_BCAST, kRecv, kRecv, 10, 0, 3)), (Expected{Write(kRecv, 40)}));
}

TEST(NcclOperations, ReduceWritesOnlyTheRootsReceiveBuffer) {
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_REDUCE, kSend, kRecv, 8, 0, 0)), (Expected{Read(kSend, 32), Write(kRecv, 32)}));
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_REDUCE, kSend, 0, 8, 0, 2)), (Expected{Read(kSend, 32)}));
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_REDUCE, kRecv, kRecv, 8, 0, 0)), (Expected{ReadWrite(kRecv, 32)}));
}

TEST(NcclOperations, AllGatherWritesEveryRanksSlice) {
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_ALL_GATHER, kSend, kRecv, 16, -1, 1, 4)),
            (Expected{Read(kSend, 64), Write(kRecv, 256)}));
  // In place: rank 1's send buffer is its slice of the receive buffer, which it only reads.
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_ALL_GATHER, kRecv + 64, kRecv, 16, -1, 1, 4)),
            (Expected{Read(kRecv + 64, 64), Write(kRecv, 64), Write(kRecv + 128, 128)}));
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_ALL_GATHER, kRecv, kRecv, 16, -1, 0, 2)),
            (Expected{Read(kRecv, 64), Write(kRecv + 64, 64)}));
}

TEST(NcclOperations, ReduceScatterReadsEveryRanksSlice) {
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_REDUCE_SCATTER, kSend, kRecv, 16, -1, 1, 4)),
            (Expected{Read(kSend, 256), Write(kRecv, 64)}));
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_REDUCE_SCATTER, kSend, kSend + 64, 16, -1, 1, 4)),
            (Expected{Read(kSend, 256), Write(kSend + 64, 64)}));
}

TEST(NcclOperations, AllToAllMovesEverySlice) {
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_ALL_TO_ALL, kSend, kRecv, 4, -1, 0, 2)),
            (Expected{Read(kSend, 32), Write(kRecv, 32)}));
}

TEST(NcclOperations, GatherAndScatterTouchTheRootsWholeBuffer) {
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_GATHER, kSend, kRecv, 4, 0, 0, 3)),
            (Expected{Read(kSend, 16), Write(kRecv, 48)}));
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_GATHER, kSend, kRecv, 4, 0, 2, 3)), (Expected{Read(kSend, 16)}));
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_GATHER, kRecv + 32, kRecv, 4, 2, 2, 3)),
            (Expected{Read(kRecv + 32, 16), Write(kRecv, 32)}));
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_SCATTER, kSend, kRecv, 4, 1, 1, 3)),
            (Expected{Read(kSend, 48), Write(kRecv, 16)}));
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_SCATTER, kSend, kRecv, 4, 1, 0, 3)), (Expected{Write(kRecv, 16)}));
  // In place at the root: its own slice stays where it is.
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_SCATTER, kSend, kSend + 16, 4, 1, 1, 3)),
            (Expected{Read(kSend, 16), Read(kSend + 32, 16)}));
}

TEST(NcclOperations, SendReadsReceiveWrites) {
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_SEND, kSend, 0, 3, /*peer=*/1, 0, 2, kInt64)), (Expected{Read(kSend, 24)}));
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_RECV, 0, kRecv, 3, 1, 0, 2, kInt64)), (Expected{Write(kRecv, 24)}));
}

TEST(NcclOperations, NothingToTouchForZeroElements) {
  EXPECT_EQ(Accesses(Call(STREAMCHECK_NCCL_ALL_REDUCE, kSend, kRecv, 0)), Expected{});
}

TEST(NcclOperations, UnknownBytesAreAProblemNotAGuess) {
  NcclOperation op;
  std::string problem;
  EXPECT_FALSE(DescribeNcclOperation(Call(STREAMCHECK_NCCL_ALL_REDUCE, kSend, kRecv, 4, -1, 0, 4, 42), &op, &problem));
  EXPECT_EQ(problem, "nccl-call (datatype unknown to streamcheck)");
  EXPECT_FALSE(DescribeNcclOperation(Call(STREAMCHECK_NCCL_ALL_GATHER, kSend, kRecv, 4, -1, 0, -1), &op, &problem));
  EXPECT_EQ(problem, "nccl-call (communicator size or rank unknown)");
  EXPECT_FALSE(DescribeNcclOperation(Call(STREAMCHECK_NCCL_BCAST, kSend, kSend, 4, 0, -1), &op, &problem));
  EXPECT_FALSE(DescribeNcclOperation(Call(STREAMCHECK_NCCL_ALL_GATHER, kSend, kRecv, 1ull << 62, -1, 0, 8), &op,
                                     &problem));
  EXPECT_EQ(problem, "nccl-call (size overflows)");
  // AllReduce needs neither the size nor the rank.
  EXPECT_TRUE(DescribeNcclOperation(Call(STREAMCHECK_NCCL_ALL_REDUCE, kSend, kRecv, 4, -1, -1, -1), &op, &problem));
}

// --- when operations are issued ---

struct Sequence {
  NcclThreadCalls calls;
  std::vector<NcclOperation> issued;
  std::vector<std::string> problems;
  void Run(StreamcheckNcclCall call, int32_t result = 0) {
    calls.Enter();
    EXPECT_TRUE(calls.inside());
    call.result = result;
    calls.Leave(call, &issued, &problems);
  }
  void Group(StreamcheckNcclFunction which, int32_t result = 0) { Run(Call(which, 0, 0, 0), result); }
};

TEST(NcclThreadCalls, AnOperationOutsideAGroupIsIssuedAtItsCall) {
  Sequence s;
  s.Run(Call(STREAMCHECK_NCCL_ALL_REDUCE, kSend, kRecv, 4));
  ASSERT_EQ(s.issued.size(), 1u);
  EXPECT_FALSE(s.issued[0].grouped);
  EXPECT_FALSE(s.calls.inside());
}

TEST(NcclThreadCalls, GroupedOperationsAreIssuedAtTheOutermostEnd) {
  Sequence s;
  s.Group(STREAMCHECK_NCCL_GROUP_START);
  s.Run(Call(STREAMCHECK_NCCL_SEND, kSend, 0, 4, 1));
  s.Group(STREAMCHECK_NCCL_GROUP_START);
  s.Run(Call(STREAMCHECK_NCCL_RECV, 0, kRecv, 4, 1));
  s.Group(STREAMCHECK_NCCL_GROUP_END);
  EXPECT_TRUE(s.issued.empty());
  EXPECT_EQ(s.calls.group_depth(), 1);
  s.Group(STREAMCHECK_NCCL_GROUP_END);
  ASSERT_EQ(s.issued.size(), 2u);
  EXPECT_TRUE(s.issued[0].grouped);
  EXPECT_EQ(s.issued[0].accesses, (Expected{Read(kSend, 16)}));
  EXPECT_EQ(s.issued[1].accesses, (Expected{Write(kRecv, 16)}));
  // The next group starts empty.
  s.issued.clear();
  s.Group(STREAMCHECK_NCCL_GROUP_START);
  s.Group(STREAMCHECK_NCCL_GROUP_END);
  EXPECT_TRUE(s.issued.empty());
}

TEST(NcclThreadCalls, AFailedOrSimulatedGroupIssuesNothing) {
  constexpr int32_t kInvalidUsage = 5;
  Sequence s;
  s.Group(STREAMCHECK_NCCL_GROUP_START);
  s.Run(Call(STREAMCHECK_NCCL_ALL_REDUCE, kSend, kRecv, 4));
  s.Group(STREAMCHECK_NCCL_GROUP_END, kInvalidUsage);
  EXPECT_TRUE(s.issued.empty());
  EXPECT_EQ(s.calls.group_depth(), 0);
  s.Group(STREAMCHECK_NCCL_GROUP_START);
  s.Run(Call(STREAMCHECK_NCCL_ALL_REDUCE, kSend, kRecv, 4));
  s.Group(STREAMCHECK_NCCL_GROUP_SIMULATE_END);
  EXPECT_TRUE(s.issued.empty());
  // An end without a start, which NCCL refuses, ends nothing.
  s.Group(STREAMCHECK_NCCL_GROUP_END, kInvalidUsage);
  EXPECT_EQ(s.calls.group_depth(), 0);
}

TEST(NcclThreadCalls, FailedCallsIssueNothingAndInProgressCounts) {
  constexpr int32_t kInProgress = 7, kSystemError = 2;
  Sequence s;
  s.Run(Call(STREAMCHECK_NCCL_ALL_REDUCE, kSend, kRecv, 4), kSystemError);
  EXPECT_TRUE(s.issued.empty());
  s.Run(Call(STREAMCHECK_NCCL_ALL_REDUCE, kSend, kRecv, 4), kInProgress);
  EXPECT_EQ(s.issued.size(), 1u);
}

// ncclBcast calls ncclBroadcast through NCCL's exported symbol: only the
// outermost call is the program's.
TEST(NcclThreadCalls, NcclsOwnCallsOfItsApiAreItsOwn) {
  Sequence s;
  s.calls.Enter();
  s.Run(Call(STREAMCHECK_NCCL_BROADCAST, kSend, kSend, 4, 0, 1));
  EXPECT_TRUE(s.calls.inside());
  EXPECT_TRUE(s.issued.empty());
  StreamcheckNcclCall outer = Call(STREAMCHECK_NCCL_BCAST, kSend, kSend, 4, 0, 1);
  s.calls.Leave(outer, &s.issued, &s.problems);
  ASSERT_EQ(s.issued.size(), 1u);
  EXPECT_EQ(s.issued[0].accesses, (Expected{Write(kSend, 16)}));
}

TEST(NcclThreadCalls, UnknownBytesAreNamedAsProblems) {
  Sequence s;
  s.Run(Call(STREAMCHECK_NCCL_ALL_GATHER, kSend, kRecv, 4, -1, 0, -1));
  EXPECT_TRUE(s.issued.empty());
  EXPECT_EQ(s.problems, (std::vector<std::string>{"nccl-call (communicator size or rank unknown)"}));
}

}  // namespace
}  // namespace streamcheck::tracer
