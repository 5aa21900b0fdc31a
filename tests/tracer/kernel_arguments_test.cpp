#include "tracer/kernel_arguments.h"

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
  EXPECT_EQ(found[0], (MemoryAccess{kA, kSize, AccessMode::kRead}));
  EXPECT_EQ(found[1], (MemoryAccess{kB, kSize, AccessMode::kUnknown}));
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

// RecentArguments answers as matching would, through every kind of change to
// the allocation table, and answers from its entries while nothing changed.
TEST(RecentArguments, AnswersAsMatchingWouldAndRepeatsOnlyWhileTheTableIsUnchanged) {
  // The same table twice: one matched every time, one through the cache.
  AllocationBounds matched = TwoBuffers(), cached = TwoBuffers();
  RecentArguments recent;
  const std::vector<ParamSlot> params = {{0, 8, AccessMode::kRead}, {8, 8, AccessMode::kUnknown}};
  Buffer b;
  auto check = [&](const char* step) {
    std::vector<MemoryAccess> expected, got;
    MatchPointerArguments(params, [&](size_t i) { return b.bytes.data() + params[i].offset; }, matched, &expected);
    recent.Match(params, [&](size_t i) { return b.bytes.data() + params[i].offset; }, cached, &got);
    EXPECT_EQ(got, expected) << step;
    return got;
  };
  auto both = [&](auto change) { change(matched), change(cached); };

  b.Put(0, kA), b.Put(8, kB);
  EXPECT_EQ(check("first launch").size(), 2u);
  check("same arguments: the table stayed as it was, so they are remembered");
  check("same arguments again");
  check("and again");
  EXPECT_EQ(recent.hits(), 2u);
  b.Put(8, kB + 512);  // other bytes: matched (and bounds kB's tail from here on)
  check("other arguments");
  EXPECT_EQ(recent.hits(), 2u);
  b.Put(8, kB);
  check("back to the first arguments: the table has a boundary more");
  check("first arguments, unchanged table");
  const uint64_t hits = recent.hits();
  EXPECT_EQ(hits, 3u);
  // Each change below would make the remembered answer wrong.
  both([](AllocationBounds& t) { t.NoteBoundary(kA + 1024); });  // a copy into kA's first KiB
  EXPECT_EQ(check("after a copy's boundary")[0].size, 1024u);
  both([](AllocationBounds& t) { t.NoteRangeEnd(kA + 256); });
  EXPECT_EQ(check("after a range's end")[0].size, 256u);
  both([](AllocationBounds& t) { t.Remove(kB); });
  EXPECT_EQ(check("after a free").size(), 1u);
  both([](AllocationBounds& t) { t.Add(kB, 2 * kSize, MemoryKind::kDevice); });
  EXPECT_EQ(check("after an allocation").size(), 2u);
  both([](AllocationBounds& t) { t.AddPoolBlock(kA, 128); });
  EXPECT_EQ(check("after a pool block")[0].size, 128u);
  both([](AllocationBounds& t) { t.RemovePoolBlock(kA); });
  check("after the block's free");
  EXPECT_EQ(recent.hits(), hits);
}

// Where the table changes between every two launches (a caching allocator's
// blocks), nothing is remembered: the arguments are not even copied.
TEST(RecentArguments, RemembersNothingWhileTheTableChangesBetweenLaunches) {
  AllocationBounds bounds = TwoBuffers();
  RecentArguments recent;
  const std::vector<ParamSlot> params = {{0, 8, AccessMode::kRead}};
  Buffer b;
  b.Put(0, kA);
  int reads = 0;  // how often the cache looked at the argument bytes
  auto launch = [&] {
    std::vector<MemoryAccess> out;
    recent.Match(params, [&](size_t) { ++reads; return b.bytes.data(); }, bounds, &out);
    EXPECT_EQ(out.size(), 1u);
  };
  for (int i = 0; i < 10; ++i) {
    launch();
    bounds.AddPoolBlock(kB + 64 * i, 64);  // the allocator's churn between launches
  }
  EXPECT_EQ(recent.hits(), 0u);
  EXPECT_EQ(reads, 10);  // once a launch, by the matching itself
  launch();  // after the last change
  launch();  // the table stayed as the last launch left it: remembered
  launch();
  EXPECT_EQ(recent.hits(), 1u);
}

TEST(MergeModes, ReadAndWriteMakeReadWriteUnknownWins) {
  EXPECT_EQ(MergeModes(AccessMode::kRead, AccessMode::kWrite), AccessMode::kReadWrite);
  EXPECT_EQ(MergeModes(AccessMode::kRead, AccessMode::kRead), AccessMode::kRead);
  EXPECT_EQ(MergeModes(AccessMode::kRead, AccessMode::kUnknown), AccessMode::kUnknown);
}

}  // namespace
}  // namespace streamcheck::tracer
