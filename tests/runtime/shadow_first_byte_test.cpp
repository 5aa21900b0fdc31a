// Shadow memory's first-byte form (shadow_first_byte.cpp) against the two
// shadow ranges it stands for: random operations applied to one shadow
// memory through AccessFirstByte and to another that only ever sees the
// first byte and the rest as two Access calls must give the same conflicts,
// in the same order, and hold the same intervals once the first-byte ones
// are split.
#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <vector>

#include "runtime/shadow_memory.h"

namespace streamcheck::testing {
namespace {

constexpr Lane kLanes = 4;
constexpr Lane kHostLane = 3;
constexpr ShadowKind kKinds[] = {ShadowKind::kRead, ShadowKind::kRead, ShadowKind::kWrite, ShadowKind::kReadWrite,
                                 ShadowKind::kUnknown};

struct Flat {
  Address begin;
  Address end;
  ShadowAccess write;
  std::vector<ShadowAccess> reads;
};

std::string Describe(const ShadowAccess& a) {
  std::ostringstream out;
  out << "{lane " << a.lane << " clock " << a.clock << " site " << a.site << " kind " << int(a.kind)
      << (a.guessed ? " guessed" : "") << (a.first_byte ? " first_byte" : "") << (a.staged_copy ? " staged" : "")
      << "}";
  return out.str();
}

// The intervals as the two-range rules keep them: first-byte ones split.
std::vector<Flat> Intervals(const ShadowMemory& shadow, size_t* first_byte_form) {
  std::vector<Flat> out;
  *first_byte_form = 0;
  shadow.ForEachInterval([&](Address begin, const ShadowInterval& iv) {
    bool any = iv.write.first_byte;
    for (size_t i = 0; i < iv.reads.size(); ++i) any = any || iv.reads[i].first_byte;
    EXPECT_EQ(iv.reads.has_first_byte(), [&] {
      for (size_t i = 0; i < iv.reads.size(); ++i)
        if (iv.reads[i].first_byte) return true;
      return false;
    }()) << "at " << begin;
    auto part = [&](Address b, Address e, ShadowAccess (*f)(ShadowAccess)) {
      Flat flat{b, e, f(iv.write), {}};
      for (size_t i = 0; i < iv.reads.size(); ++i) flat.reads.push_back(f(iv.reads[i]));
      out.push_back(flat);
    };
    if (!any) {
      part(begin, iv.end, [](ShadowAccess a) { return a; });
      return;
    }
    ++*first_byte_form;
    EXPECT_GT(iv.end, begin + 1) << "a first-byte interval of one byte at " << begin;
    part(begin, begin + 1, HeadPart);
    part(begin + 1, iv.end, TailPart);
  });
  return out;
}

void ExpectSameIntervals(const ShadowMemory& joined, const ShadowMemory& split, const std::string& where) {
  size_t form = 0, none = 0;
  const std::vector<Flat> a = Intervals(joined, &form), b = Intervals(split, &none);
  EXPECT_EQ(form, joined.first_byte_intervals()) << where;
  EXPECT_EQ(none, 0u) << where;
  ASSERT_EQ(a.size(), b.size()) << where;
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].begin, b[i].begin) << where;
    ASSERT_EQ(a[i].end, b[i].end) << where << " interval at " << a[i].begin;
    ASSERT_TRUE(a[i].write.SameAs(b[i].write))
        << where << " write at " << a[i].begin << ": " << Describe(a[i].write) << " vs " << Describe(b[i].write);
    ASSERT_EQ(a[i].reads.size(), b[i].reads.size()) << where << " reads at " << a[i].begin;
    for (size_t r = 0; r < a[i].reads.size(); ++r)
      ASSERT_TRUE(a[i].reads[r].SameAs(b[i].reads[r]))
          << where << " read " << r << " at " << a[i].begin << ": " << Describe(a[i].reads[r]) << " vs "
          << Describe(b[i].reads[r]);
  }
}

void ExpectSameConflicts(const std::vector<ShadowConflict>& a, const std::vector<ShadowConflict>& b,
                         const std::string& where) {
  ASSERT_EQ(a.size(), b.size()) << where;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(a[i].earlier.SameAs(b[i].earlier))
        << where << " conflict " << i << ": " << Describe(a[i].earlier) << " vs " << Describe(b[i].earlier);
    EXPECT_EQ(a[i].begin, b[i].begin) << where << " conflict " << i;
    EXPECT_EQ(a[i].end, b[i].end) << where << " conflict " << i;
  }
}

// One random operation on both. Addresses fall in a few buffers of 16 bytes
// (whole-buffer extents, the fast paths) and anywhere in [0, 80) (splits,
// gaps, merges, extents that run into the next buffer).
class Pair {
 public:
  explicit Pair(uint32_t seed) : rng_(seed) {}

  void Step(int step) {
    const std::string where = "seed step " + std::to_string(step);
    Address addr;
    uint64_t size;
    if (rng_() % 2) {
      addr = 16 * (rng_() % 5);
      size = 16;
    } else {
      addr = rng_() % 80;
      size = 1 + rng_() % 20;
    }
    const int op = static_cast<int>(rng_() % 20);
    // An access may be one more of the previous step's operation (a kernel's
    // next pointer): the same lane, clock and site.
    const bool access = op < 15;
    if (!access || operation_.empty() || rng_() % 3 != 0) {
      current_ = Tick();
      operation_.clear();
    }
    ShadowAccess now = current_;
    now.kind = kKinds[rng_() % std::size(kKinds)];
    VectorClock clock = clock_;
    auto is_host = [](Lane l) { return l == kHostLane; };
    // The operation's earlier accesses, as the engine gives them.
    const std::vector<MemoryAccess> before = operation_;
    if (access) operation_.push_back({addr, size});
    static const MemoryAccess kNone{};
    const AccessContext context{rng_() % 4 == 0, before.empty() ? &kNone : before.data(), before.size()};
    const AccessContext two_ranges{context.host_threads_unordered};
    std::vector<ShadowConflict> joined_conflicts, split_conflicts;
    if (op < 9 && size > 1) {  // a kernel pointer's guessed extent
      now.guessed = now.first_byte = true;
      const size_t first = joined_.AccessFirstByte(addr, size, now, clock, is_host, &joined_conflicts, context);
      split_.Access(addr, 1, HeadPart(now), clock, is_host, &split_conflicts, two_ranges);
      EXPECT_EQ(first, split_conflicts.size()) << where;
      split_.Access(addr + 1, size - 1, TailPart(now), clock, is_host, &split_conflicts, two_ranges);
    } else if (access) {  // an exact access, or a wholly guessed one
      now.guessed = rng_() % 4 == 0;
      joined_.Access(addr, size, now, clock, is_host, &joined_conflicts, context);
      split_.Access(addr, size, now, clock, is_host, &split_conflicts, two_ranges);
    } else if (op < 17) {  // a free, or a pool block's reuse
      ShadowAccess free = now;
      free.kind = ShadowKind::kFree;
      ShadowAccess after = free;
      if (rng_() % 2) after.kind = ShadowKind::kAllocate;
      joined_.Free(addr, size, free, clock, is_host, &joined_conflicts, after);
      split_.Free(addr, size, free, clock, is_host, &split_conflicts, after);
    } else if (op == 17) {
      const ShadowAccess marker = rng_() % 2 ? ShadowAccess{} : ShadowAccess{now.lane, now.clock, now.site,
                                                                             ShadowKind::kAllocate};
      joined_.Reset(addr, size, marker);
      split_.Reset(addr, size, marker);
    } else if (op == 18) {
      joined_.Fresh(addr, size);
      split_.Fresh(addr, size);
    } else {
      joined_.ForgetFrees(addr, size);
      split_.ForgetFrees(addr, size);
    }
    ExpectSameConflicts(joined_conflicts, split_conflicts, where);
    ExpectSameIntervals(joined_, split_, where);
  }

  const ShadowMemory& joined() const { return joined_; }

 private:
  // A new operation on a random lane, after a random part of what the other lanes did.
  ShadowAccess Tick() {
    const Lane lane = static_cast<Lane>(rng_() % kLanes);
    for (Lane l = 0; l < kLanes; ++l)
      if (l != lane && rng_() % 3 == 0) clock_.Set(l, static_cast<Clock>(rng_() % (own_[l] + 1)));
    clock_.Set(lane, ++own_[lane]);
    ShadowAccess now{lane, own_[lane], static_cast<uint32_t>(1 + rng_() % 3)};
    now.staged_copy = rng_() % 16 == 0;
    return now;
  }

  std::mt19937 rng_;
  ShadowAccess current_;                 // the operation of the last step
  std::vector<MemoryAccess> operation_;  // the ranges its accesses reached
  VectorClock clock_;
  Clock own_[kLanes] = {};
  ShadowMemory joined_, split_;
};

TEST(ShadowFirstByte, EqualsTwoRangesOnRandomOperations) {
  size_t first_byte_form_seen = 0;
  for (uint32_t seed = 1; seed <= 1500; ++seed) {
    Pair pair(seed);
    for (int step = 0; step < 150; ++step) {
      SCOPED_TRACE("seed " + std::to_string(seed));
      pair.Step(step);
      if (::testing::Test::HasFailure()) return;
      first_byte_form_seen += pair.joined().first_byte_intervals();
    }
  }
  EXPECT_GT(first_byte_form_seen, 10000u);  // the first-byte form was there to be used
}

// A buffer a kernel reaches through a pointer is one interval in first-byte
// form: the next launch's access is one lookup, and a copy over the whole
// buffer makes it plain again. An access not known to be alone in its
// operation leaves the two parts apart; the next one joins them.
TEST(ShadowFirstByte, AKernelsExtentIsOneInterval) {
  ShadowMemory shadow;
  VectorClock clock;
  std::vector<ShadowConflict> conflicts;
  auto never_host = [](Lane) { return false; };
  const MemoryAccess nothing_before{};
  const AccessContext alone{false, &nothing_before, 0};
  shadow.Fresh(0x1000, 256);
  shadow.Fresh(0x2000, 256);
  clock.Set(0, 1);
  ShadowAccess kernel{0, 1, 1, ShadowKind::kWrite};
  kernel.guessed = kernel.first_byte = true;
  EXPECT_EQ(shadow.AccessFirstByte(0x2000, 256, kernel, clock, never_host, &conflicts), 0u);
  EXPECT_EQ(shadow.interval_count(), 3u);
  EXPECT_EQ(shadow.first_byte_intervals(), 0u);
  EXPECT_EQ(shadow.AccessFirstByte(0x1000, 256, kernel, clock, never_host, &conflicts, alone), 0u);
  EXPECT_EQ(shadow.interval_count(), 3u);
  EXPECT_EQ(shadow.first_byte_intervals(), 1u);
  // Another stream reads them unordered: the first byte's conflict is certain, the rest's guessed.
  VectorClock other;
  other.Set(1, 1);
  for (const Address buffer : {0x1000, 0x2000}) {
    conflicts.clear();
    EXPECT_EQ(shadow.AccessFirstByte(buffer, 256, {1, 1, 2, ShadowKind::kRead, true, true, false}, other, never_host,
                                     &conflicts),
              1u);
    ASSERT_EQ(conflicts.size(), 2u);
    EXPECT_FALSE(conflicts[0].earlier.guessed);
    EXPECT_EQ(conflicts[0].end - conflicts[0].begin, 1u);
    EXPECT_TRUE(conflicts[1].earlier.guessed);
    EXPECT_EQ(conflicts[1].begin, buffer + 1);
  }
  EXPECT_EQ(shadow.interval_count(), 2u);
  EXPECT_EQ(shadow.first_byte_intervals(), 2u);
  conflicts.clear();
  clock.Set(0, 2);
  clock.Set(1, 1);
  shadow.Access(0x1000, 256, {0, 2, 3, ShadowKind::kWrite}, clock, never_host, &conflicts);
  EXPECT_TRUE(conflicts.empty());
  EXPECT_EQ(shadow.interval_count(), 2u);
  EXPECT_EQ(shadow.first_byte_intervals(), 1u);
}

}  // namespace
}  // namespace streamcheck::testing
