#include "tracer/kernel_access/kernel_arguments.h"

#include <gtest/gtest.h>

namespace streamcheck::tracer {
namespace {

constexpr Address kA = 0x7f0000000000, kB = 0x7f0000100000;
constexpr uint64_t kSize = 4096;

// Parameter bytes laid out as a kernel's parameter buffer.
struct Buffer {
  std::vector<char> bytes = std::vector<char>(256, 0);
  void Put(size_t offset, uint64_t word) { std::memcpy(bytes.data() + offset, &word, sizeof word); }
};

std::vector<MemoryAccess> Match(const std::vector<ParamSlot>& params, const Buffer& b, AllocationBounds& bounds) {
  std::vector<MemoryAccess> out;
  MatchPointerArguments(params, [&](size_t i) { return b.bytes.data() + params[i].offset; }, bounds, &out);
  return out;
}

AllocationBounds TwoBuffers() {
  AllocationBounds bounds;
  bounds.Add(kA, kSize, MemoryKind::kDevice);
  bounds.Add(kB, kSize, MemoryKind::kDevice);
  return bounds;
}

TEST(MatchPointerArguments, PlainPointersTakeTheSignaturesMode) {
  AllocationBounds bounds = TwoBuffers();
  Buffer b;
  b.Put(0, kA);
  b.Put(8, kB);
  b.Put(16, 42);  // an int-sized count, not a pointer
  const auto found = Match({{0, 8, AccessMode::kRead}, {8, 8, AccessMode::kUnknown}, {16, 4, AccessMode::kUnknown}},
                           b, bounds);
  ASSERT_EQ(found.size(), 2u);
  // The policy's extents: only the byte each pointer starts at is certain.
  EXPECT_EQ(found[0], (MemoryAccess{kA, kSize, AccessMode::kRead, AccessCertainty::kFirstByte}));
  EXPECT_EQ(found[1], (MemoryAccess{kB, kSize, AccessMode::kUnknown, AccessCertainty::kFirstByte}));
}

// A pointer to volatile memory (a flag the kernel polls) is synchronization:
// its word is not an access.
TEST(MatchPointerArguments, PointersToVolatileMemoryAreLeftOut) {
  AllocationBounds bounds = TwoBuffers();
  Buffer b;
  b.Put(0, kA);
  b.Put(8, kB);
  ParamSlot flag{0, 8, AccessMode::kUnknown};
  flag.volatile_pointee = true;
  const auto found = Match({flag, {8, 8, AccessMode::kUnknown}}, b, bounds);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].addr, kB);
}

// ... but it tells where something starts: a flag at the end of a struct
// whose other fields the kernel takes through plain pointers bounds them
// (cuda-samples' cudaGraphsPerfScaling: waitWithTimeout(ns, bool* timeout,
// long long* elapsed, volatile int* latch), all into one pinned struct the
// host sets the latch of while the kernel runs).
TEST(MatchPointerArguments, APointerToVolatileMemoryBoundsItsSiblings) {
  AllocationBounds bounds = TwoBuffers();
  Buffer b;
  b.Put(0, kA + 8);   // bool* timeout
  b.Put(8, kA);       // long long* elapsed
  b.Put(16, kA + 32); // volatile int* latch
  ParamSlot latch{16, 8, AccessMode::kUnknown};
  latch.volatile_pointee = true;
  const auto found = Match({{0, 8, AccessMode::kUnknown}, {8, 8, AccessMode::kUnknown}, latch}, b, bounds);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0], (MemoryAccess{kA + 8, 24, AccessMode::kUnknown, AccessCertainty::kFirstByte}));
  EXPECT_EQ(found[1], (MemoryAccess{kA, 8, AccessMode::kUnknown, AccessCertainty::kFirstByte}));
}

TEST(MatchPointerArguments, PointersInsideStructsAreFoundWithUnknownMode) {
  AllocationBounds bounds = TwoBuffers();
  Buffer b;
  // struct { int n; int pad; const float* in; float* out; } passed by value.
  b.Put(0, 7);
  b.Put(8, kA);
  b.Put(16, kB);
  const auto found = Match({{0, 24, AccessMode::kUnknown}}, b, bounds);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].addr, kA);
  EXPECT_EQ(found[1].addr, kB);
  EXPECT_EQ(found[0].mode, AccessMode::kUnknown);
}

TEST(MatchPointerArguments, WordsOutsideLiveAllocationsAreIgnored) {
  AllocationBounds bounds = TwoBuffers();
  Buffer b;
  b.Put(0, kA + kSize);  // one past the end
  b.Put(8, 0);
  b.Put(16, 0x1234);
  EXPECT_TRUE(Match({{0, 8}, {8, 8}, {16, 8}}, b, bounds).empty());
  bounds.Remove(kA);
  b.Put(0, kA);
  EXPECT_TRUE(Match({{0, 8}}, b, bounds).empty());
}

TEST(MatchPointerArguments, OneRangeThroughTwoParametersIsOneAccess) {
  AllocationBounds bounds = TwoBuffers();
  Buffer b;
  b.Put(0, kA);
  b.Put(8, kA);  // in-place kernel: f(const float* in, float* out) with in == out
  const auto found = Match({{0, 8, AccessMode::kRead}, {8, 8, AccessMode::kUnknown}}, b, bounds);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].mode, AccessMode::kUnknown);
}

TEST(MatchPointerArguments, UnavailableParameterBytesAreSkipped) {
  AllocationBounds bounds = TwoBuffers();
  std::vector<MemoryAccess> out{{1, 1, AccessMode::kRead}};  // stale content is cleared
  MatchPointerArguments(std::vector<ParamSlot>{{0, 8}}, [](size_t) -> const char* { return nullptr; }, bounds, &out);
  EXPECT_TRUE(out.empty());
}

// The program's thread keeps the words inside the span of all allocations
// (sizes, strides and scalars fall below it), each with the mode its
// parameter's signature gives; the worker drops those in no live allocation.
TEST(CollectPointerWords, KeepsWordsInsideTheSpanWithTheirParametersMode) {
  AddressSpan span;
  span.Widen(kA, kSize);
  span.Widen(kB, kSize);
  Buffer b;
  b.Put(0, kA + 16);
  b.Put(8, 42);             // a count
  b.Put(16, kA + kSize);    // between the two buffers: inside the span
  b.Put(24, kB + kSize);    // one past the span
  b.Put(32, kB);            // inside a struct parameter
  std::vector<MemoryAccess> words{{1, 1, AccessMode::kRead}};  // stale content is cleared
  const std::vector<ParamSlot> params = {{0, 8, AccessMode::kRead}, {8, 8, AccessMode::kRead},
                                         {16, 8, AccessMode::kWrite}, {24, 16, AccessMode::kRead}};
  CollectPointerWords(params, [&](size_t i) { return b.bytes.data() + params[i].offset; }, span, &words);
  // A plain pointer's first byte is certain; a struct member's not even that.
  EXPECT_EQ(words, (std::vector<MemoryAccess>{{kA + 16, 0, AccessMode::kRead, AccessCertainty::kFirstByte},
                                              {kA + kSize, 0, AccessMode::kWrite, AccessCertainty::kFirstByte},
                                              {kB, 0, AccessMode::kUnknown, AccessCertainty::kNone}}));
  AllocationBounds bounds = TwoBuffers();
  std::vector<MemoryAccess> accesses;
  ResolvePointerWords(words, bounds, &accesses);
  EXPECT_EQ(accesses, (std::vector<MemoryAccess>{{kA + 16, 1, AccessMode::kRead, AccessCertainty::kFirstByte},
                                                 {kB, kSize, AccessMode::kUnknown, AccessCertainty::kNone}}));
}

TEST(CollectPointerWords, NothingBeforeTheFirstAllocation) {
  const AddressSpan empty;
  Buffer b;
  b.Put(0, kA);
  std::vector<MemoryAccess> words;
  CollectPointerWords(std::vector<ParamSlot>{{0, 8}}, [&](size_t) { return b.bytes.data(); }, empty, &words);
  EXPECT_TRUE(words.empty());
}

}  // namespace
}  // namespace streamcheck::tracer
