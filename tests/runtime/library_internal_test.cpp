// A library's own work (TraceRecord::library: NCCL's CUDA calls inside its
// API calls and on its threads, cuBLAS's workspaces) is never blamed: a
// finding with such a side, or on memory a library allocated for itself,
// is counted by library and rule (EngineStats::library_internal), not
// reported. What an NCCL call does to the program's memory is a record of
// the program's own: a kernel launch with the collective's accesses.
#include <gtest/gtest.h>

#include "tests/runtime/finding_matchers.h"
#include "tests/runtime/trace_builder.h"

namespace streamcheck::testing {
namespace {

constexpr Handle kCompute = 0x10, kNcclStream = 0x20, kInternal = 0x30, kE = 0xe1, kEnd = 0xe2;
constexpr Address kGrad = 0x1000, kStaging = 0x9000, kHost = 0x7f0000;

TraceBuilder Streams() {
  TraceBuilder t;
  t.StreamCreate(kCompute, kStreamNonBlocking).StreamCreate(kNcclStream, kStreamNonBlocking);
  t.StreamCreate(kInternal, kStreamNonBlocking).Library("nccl");
  t.EventCreate(kE).EventCreate(kEnd).Malloc(kGrad, 4096);
  return t;
}

// NCCL's internal streams wait on events they never recorded, on purpose.
TEST(LibraryInternal, ALibrarysWaitOnAnUnrecordedEventIsCountedNotReported) {
  auto t = Streams();
  t.Wait(kInternal, kE).Library("nccl");
  EngineStats stats;
  EXPECT_TRUE(t.Run(&stats).empty());
  EXPECT_EQ(stats.library_internal, (std::map<std::string, uint64_t>{{"nccl: wait-on-unrecorded-event", 1}}));
  // The program's own wait is still its own.
  t.Wait(kCompute, kE);
  const auto fs = t.Run(&stats);
  EXPECT_EQ(CountRule(fs, "wait-on-unrecorded-event"), 1u) << Summary(fs);
}

// The findings PyTorch's DDP got from inside NCCL (issue 24): its staging
// copies and memsets on streams of its own, pageable copies among them.
TEST(LibraryInternal, RacesAndPageableCopiesAmongALibrarysOwnOperations) {
  auto t = Streams();
  t.Malloc(kStaging, 256).Library("nccl");
  t.Memset(kNcclStream, kStaging, 256, true).Library("nccl");
  t.Copy(kInternal, kHost, kStaging, 256, CopyKind::kDeviceToHost, true).Library("nccl");
  t.Copy(kInternal, kGrad + 2048, kHost, 64, CopyKind::kHostToDevice, true).Library("nccl");
  EngineStats stats;
  const auto fs = t.Run(&stats);
  EXPECT_TRUE(fs.empty()) << Summary(fs);
  // The copy into pageable memory would be a warning of the program's own; the
  // copy from it is none (the driver has read it when the call returns), but
  // that read on the host does not wait for the first copy's write.
  EXPECT_EQ(stats.library_internal, (std::map<std::string, uint64_t>{{"nccl: cross-stream-race", 1},
                                                                      {"nccl: host-device-race", 1},
                                                                      {"nccl: pageable-async-copy", 1}}));
}

// A single operation's finding says how the call was made: made from a
// library's code on the program's thread (cuSPARSE copying a result into
// its caller's pageable int, and synchronizing a few calls later), it is the
// library's. The same copy from the program's code is reported, and a race
// with the copy's bytes still is: the copy is no library work.
TEST(LibraryInternal, ASingleOperationsFindingMadeFromALibrarysCodeIsItsOwn) {
  auto t = Streams();
  t.Copy(kCompute, kHost, kGrad, 4, CopyKind::kDeviceToHost, true).CalledFrom("cusparse");
  t.HostRead(kHost, 4);
  EngineStats stats;
  const auto fs = t.Run(&stats);
  EXPECT_EQ(CountRule(fs, "pageable-async-copy"), 0u) << Summary(fs);
  EXPECT_EQ(CountRule(fs, "host-device-race"), 1u) << Summary(fs);
  EXPECT_EQ(stats.library_internal, (std::map<std::string, uint64_t>{{"cusparse: pageable-async-copy", 1}}));

  auto own = Streams();
  own.Copy(kCompute, kHost, kGrad, 4, CopyKind::kDeviceToHost, true);
  EXPECT_EQ(CountRule(own.Run(), "pageable-async-copy"), 1u);
}

// dist.all_reduce(x, async_op=True); x.mul_(2) before work.wait().
TEST(LibraryInternal, TheCollectiveIsTheProgramsAndRacesWithItsKernels) {
  auto t = Streams();
  t.Kernel(kCompute, "fill", {W(kGrad, 4096)}).FrameworkOp("aten::fill_").Record(kE, kCompute);
  t.Wait(kNcclStream, kE);
  t.Kernel(kInternal, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", {}).Library("nccl");
  t.Kernel(kNcclStream, "ncclAllReduce", {RW(kGrad, 4096)}).FrameworkOp("c10d::allreduce_");
  t.Record(kEnd, kNcclStream);
  auto racy = t;
  racy.Kernel(kCompute, "mul", {RW(kGrad, 4096)}).FrameworkOp("aten::mul_");
  const auto fs = racy.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "cross-stream-race");
  EXPECT_EQ(fs[0].accesses[0].op, "ncclAllReduce");
  EXPECT_EQ(fs[0].accesses[0].framework_op, "c10d::allreduce_");
  EXPECT_EQ(fs[0].accesses[1].framework_op, "aten::mul_");
  auto fixed = t;  // work.wait(): the current stream waits for the collective's end
  fixed.Wait(kCompute, kEnd).Kernel(kCompute, "mul", {RW(kGrad, 4096)}).FrameworkOp("aten::mul_");
  EXPECT_TRUE(fixed.Run().empty()) << Summary(fixed.Run());
}

// A library's own operation on the program's memory (NCCL's one-rank copy)
// is covered by the call's record: its race is counted, the call's reported.
TEST(LibraryInternal, ALibrarysOperationOnProgramMemoryLeavesTheReportToTheCall) {
  auto t = Streams();
  t.Copy(kNcclStream, kGrad, kGrad + 2048, 2048, CopyKind::kDeviceToDevice, true).Library("nccl");
  t.Kernel(kNcclStream, "ncclAllReduce", {R(kGrad + 2048, 2048), W(kGrad, 2048)});
  t.Kernel(kCompute, "reader", {R(kGrad, 2048)});
  EngineStats stats;
  const auto fs = t.Run(&stats);
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].accesses[0].op, "ncclAllReduce");
}

// cuBLAS's and cuDNN's workspaces: memory a library allocated for itself.
TEST(LibraryInternal, RacesOnALibrarysOwnAllocationAreItsOwn) {
  constexpr Address kWorkspace = 0x40000;
  auto t = Streams();
  t.Malloc(kWorkspace, 1 << 20).Library("cublas");
  t.Kernel(kCompute, "gemm_splitk", {W(kWorkspace, 1 << 20)});
  t.Kernel(kNcclStream, "gemm_splitk", {W(kWorkspace, 1 << 20)});
  EngineStats stats;
  EXPECT_TRUE(t.Run(&stats).empty());
  EXPECT_EQ(stats.library_internal, (std::map<std::string, uint64_t>{{"cublas: cross-stream-race", 1}}));
  // The same race on the program's own allocation is the program's.
  auto own = Streams();
  own.Malloc(kWorkspace, 1 << 20);
  own.Kernel(kCompute, "gemm_splitk", {W(kWorkspace, 1 << 20)});
  own.Kernel(kNcclStream, "gemm_splitk", {W(kWorkspace, 1 << 20)});
  EXPECT_EQ(CountRule(own.Run(), "cross-stream-race"), 1u);
}

}  // namespace
}  // namespace streamcheck::testing
