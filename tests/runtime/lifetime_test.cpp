// Allocation lifetimes: cudaFree synchronizes the device; cudaFreeAsync is a
// stream operation; stream-ordered allocations are usable in stream order.
#include <gtest/gtest.h>

#include "tests/runtime/finding_matchers.h"
#include "tests/runtime/trace_builder.h"

namespace streamcheck::testing {
namespace {

constexpr Handle kS1 = 0x10, kS2 = 0x20, kE = 0xe1;
constexpr Address kBuf = 0x1000;

TraceBuilder Given() {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking).EventCreate(kE);
  return t;
}

TEST(Lifetime, CudaFreeSynchronizesTheDevice) {
  auto t = Given();
  t.Malloc(kBuf, 64).Kernel(kS1, "user", {R(kBuf, 64)}).Free(kBuf);
  EXPECT_TRUE(t.Run().empty());
}

TEST(Lifetime, UseAfterFree) {
  auto t = Given();
  t.Malloc(kBuf, 64).Free(kBuf).Kernel(kS1, "late_user", {R(kBuf, 64)});
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "use-after-free");
  EXPECT_EQ(fs[0].accesses[0].api, "cudaFree");
}

TEST(Lifetime, ReallocationStartsFresh) {
  auto t = Given();
  t.Malloc(kBuf, 64).Kernel(kS1, "a", {W(kBuf, 64)}).Free(kBuf).Malloc(kBuf, 64).Kernel(kS2, "b", {W(kBuf, 64)});
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());
}

TEST(Lifetime, FreeAsyncWhileAnotherStreamStillUsesTheMemory) {
  auto t = Given();
  t.MallocAsync(kBuf, 64, kS1).Kernel(kS1, "init", {W(kBuf, 64)}).Record(kE, kS1).Wait(kS2, kE);
  t.Kernel(kS2, "reader", {R(kBuf, 64)}).FreeAsync(kBuf, kS1);
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "free-while-in-use");
  EXPECT_EQ(fs[0].accesses[0].op, "reader");
  EXPECT_EQ(fs[0].accesses[1].api, "cudaFreeAsync");
}

TEST(Lifetime, FreeAsyncOrderedAfterTheLastUse) {
  auto t = Given();
  t.MallocAsync(kBuf, 64, kS1).Kernel(kS1, "init", {W(kBuf, 64)}).Record(kE, kS1).Wait(kS2, kE);
  t.Kernel(kS2, "reader", {R(kBuf, 64)}).Record(kE, kS2).Wait(kS1, kE).FreeAsync(kBuf, kS1);
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());
}

TEST(Lifetime, StreamOrderedAllocationUsedOnAnotherStreamTooEarly) {
  auto t = Given();
  t.MallocAsync(kBuf, 64, kS1).Kernel(kS2, "user", {W(kBuf, 64)});
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "use-before-allocation");

  auto fixed = Given();
  fixed.MallocAsync(kBuf, 64, kS1).Record(kE, kS1).Wait(kS2, kE).Kernel(kS2, "user", {W(kBuf, 64)});
  EXPECT_TRUE(fixed.Run().empty());
}

TEST(Lifetime, PoolReuseOnAnotherStreamIsOrderedByThePool) {
  auto t = Given();
  t.MallocAsync(kBuf, 64, kS1).Kernel(kS1, "a", {W(kBuf, 64)}).FreeAsync(kBuf, kS1);
  t.MallocAsync(kBuf, 64, kS2).Kernel(kS2, "b", {W(kBuf, 64)});
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());
}

TEST(Lifetime, UseAfterFreeAsync) {
  auto t = Given();
  t.MallocAsync(kBuf, 64, kS1).FreeAsync(kBuf, kS1).Kernel(kS1, "late", {R(kBuf, 64)});
  EXPECT_EQ(CountRule(t.Run(), "use-after-free"), 1u);
}

TEST(Lifetime, HostFunctionsRunInStreamOrder) {
  auto t = Given();
  t.Malloc(kBuf, 64).Kernel(kS1, "producer", {W(kBuf, 64)}).HostFunc(kS1).Record(kE, kS1).Wait(kS2, kE);
  t.Kernel(kS2, "consumer", {R(kBuf, 64)});
  EXPECT_TRUE(t.Run().empty());
}

}  // namespace
}  // namespace streamcheck::testing
