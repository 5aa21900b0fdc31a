// Host stacks recognized as repeated (tracer/stacks/repeated_stacks.h) must be the
// stacks an unwind would have returned: the same call path gives the same
// stack, and another path at the same depth, a deeper or shallower call, or a
// call from a signal handler never gets an earlier path's stack.
#include "tracer/stacks/host_stacks.h"

#include <gtest/gtest.h>

#include <csignal>
#include <set>
#include <thread>
#include <vector>

#include "tracer/stacks/native_unwinder.h"
#include "tracer/stacks/repeated_stacks.h"

namespace streamcheck::tracer {
namespace {

// Every stack recognized as repeated, or made by the witnessing walk, is
// compared with a fresh unwind from the same call (the table's verification
// mode); the tests count the differences.
HostStacks& Recognizing() {
  static HostStacks stacks(/*recognize_repeated_stacks=*/true, /*verify_repeated_stacks=*/true);
  return stacks;
}

struct CapturePair {
  StackId id = 0;
  std::vector<uint64_t> pcs;
};

__attribute__((noinline)) CapturePair CaptureAt() {
  bool is_new = false;
  CapturePair p;
  p.id = Recognizing().Capture(&is_new);
  p.pcs = Recognizing().ProgramCounters(p.id);
  return p;
}

// Two paths that reach CaptureAt at the same stack depth: identical
// bodies, so identical frames, differing only in their return addresses.
__attribute__((noinline)) CapturePair PathA() {
  CapturePair p = CaptureAt();
  asm volatile("");
  return p;
}
__attribute__((noinline)) CapturePair PathB() {
  CapturePair p = CaptureAt();
  asm volatile("");
  return p;
}

__attribute__((noinline)) CapturePair AtDepth(int depth) {
  if (depth == 0) return CaptureAt();
  CapturePair p = AtDepth(depth - 1);
  asm volatile("");
  return p;
}

// A frame-pointer frame with a runtime-sized allocation: its CFA comes from RBP.
__attribute__((noinline)) CapturePair ThroughAlloca(int bytes) {
  volatile char* scratch = static_cast<volatile char*>(__builtin_alloca(bytes));
  scratch[0] = 1;
  CapturePair p = CaptureAt();
  asm volatile("" ::"r"(scratch));
  return p;
}

// A frame whose CFA comes from RBP, entered at two stack depths through one
// call instruction (a function pointer), with allocations sized so that the
// frames inside it lie at the same addresses both times: only its RBP tells
// the two stacks apart. The deeper call's frame holds, where the shallower
// call's RBP frame kept its return address, the same return address.
uintptr_t g_frame_entry = 0;
__attribute__((noinline)) CapturePair RbpFrame(size_t bytes) {
  volatile char* scratch = static_cast<volatile char*>(__builtin_alloca(bytes));
  scratch[0] = 1;
  g_frame_entry = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  CapturePair p = CaptureAt();
  asm volatile("" ::"r"(scratch));
  return p;
}
__attribute__((noinline)) CapturePair PaddedRbpFrame(size_t bytes) {
  volatile char pad[256];
  pad[0] = 0;
  CapturePair p = RbpFrame(bytes);
  asm volatile("" ::"r"(pad));
  return p;
}
using RbpPath = CapturePair (*)(size_t);
RbpPath volatile g_rbp_paths[2] = {RbpFrame, PaddedRbpFrame};
size_t g_rbp_bytes[2] = {64, 64};
__attribute__((noinline)) CapturePair ThroughPointer(int deep) {
  CapturePair p = g_rbp_paths[deep](g_rbp_bytes[deep]);
  asm volatile("");
  return p;
}

uint64_t Hits() { return RepeatedStackCounters().hits.load(); }
uint64_t Mismatches() { return RepeatedStackCounters().mismatches.load(); }

bool Recognizes() { return NativeUnwinder::Get().CanWalk(); }

// Each test runs on a thread of its own: a thread's walks are budgeted, and
// earlier tests must not have spent them.
template <typename Body>
void OnFreshThread(Body body) {
  std::thread(body).join();
}

TEST(HostStacks, RepeatedCallPathIsRecognizedAndEqualsAnUnwind) {
  if (!Recognizes()) GTEST_SKIP() << "libunwind is not available";
  OnFreshThread([] {
    const uint64_t hits_before = Hits(), mismatches_before = Mismatches();
    StackId first = 0;
    for (int i = 0; i < 20; ++i) {
      const CapturePair p = PathA();
      ASSERT_FALSE(p.pcs.empty());
      if (i == 0) first = p.id;
      EXPECT_EQ(p.id, first);
    }
    EXPECT_GT(Hits(), hits_before + 10) << "a loop's repeated stack should be recognized";
    EXPECT_EQ(Mismatches(), mismatches_before);
  });
}

TEST(HostStacks, AnotherPathAtTheSameDepthGetsItsOwnStack) {
  if (!Recognizes()) GTEST_SKIP() << "libunwind is not available";
  OnFreshThread([] {
    const uint64_t mismatches_before = Mismatches();
    CapturePair first[2];
    for (int i = 0; i < 40; ++i) {
      const bool take_b = i % 3 == 0;
      const CapturePair p = take_b ? PathB() : PathA();
      if (first[take_b].id == 0) first[take_b] = p;
      EXPECT_EQ(p.id, first[take_b].id) << "iteration " << i;
    }
    EXPECT_NE(first[0].id, first[1].id);
    EXPECT_EQ(first[0].pcs.size(), first[1].pcs.size()) << "the two paths are equally deep";
    EXPECT_EQ(Mismatches(), mismatches_before);
  });
}

TEST(HostStacks, DepthChangesAreNeverConfused) {
  if (!Recognizes()) GTEST_SKIP() << "libunwind is not available";
  OnFreshThread([] {
    const uint64_t mismatches_before = Mismatches();
    std::vector<StackId> by_depth(5);
    for (int i = 0; i < 60; ++i) {
      const int depth = (i * 7) % 5;
      const CapturePair p = AtDepth(depth);
      if (by_depth[depth] == 0) by_depth[depth] = p.id;
      EXPECT_EQ(p.id, by_depth[depth]) << "iteration " << i;
    }
    EXPECT_EQ(std::set<StackId>(by_depth.begin(), by_depth.end()).size(), 5u);
    EXPECT_EQ(Mismatches(), mismatches_before);
  });
}

TEST(HostStacks, FramePointerFramesOfChangingSize) {
  if (!Recognizes()) GTEST_SKIP() << "libunwind is not available";
  OnFreshThread([] {
    const uint64_t hits_before = Hits(), mismatches_before = Mismatches();
    for (int i = 0; i < 60; ++i) ThroughAlloca(16 + 16 * (i % 3));
    EXPECT_GT(Hits(), hits_before) << "each of the three sizes repeats";
    EXPECT_EQ(Mismatches(), mismatches_before);
  });
}

TEST(HostStacks, SameInnerFramesUnderAnRbpFrameAtAnotherDepth) {
  if (!Recognizes()) GTEST_SKIP() << "libunwind is not available";
  OnFreshThread([] {
    const uint64_t mismatches_before = Mismatches();
    // Both paths go through one call instruction here and one in ThroughPointer.
    volatile int rounds = 14;
    uintptr_t entry[2] = {0, 0};
    StackId ids[2] = {0, 0};
    for (int i = 0; i < rounds; ++i) {
      const int deep = i % 2;
      const StackId id = ThroughPointer(deep).id;
      if (i < 2) {
        // The first round measures each path's depth, then sizes the shallow
        // path's allocation to put RbpFrame's inner frames where the deep path's are.
        entry[deep] = g_frame_entry;
        if (deep == 1) {
          ASSERT_GT(entry[0], entry[1]);
          g_rbp_bytes[0] = g_rbp_bytes[1] + (entry[0] - entry[1]);
        }
        continue;
      }
      if (ids[deep] == 0) ids[deep] = id;
      EXPECT_EQ(id, ids[deep]) << "round " << i;
    }
    EXPECT_NE(ids[0], ids[1]);
    EXPECT_EQ(Mismatches(), mismatches_before);
  });
}

CapturePair g_in_handler;
void CaptureInHandler(int) { g_in_handler = CaptureAt(); }

TEST(HostStacks, SignalHandlerStacksAreUnwound) {
  if (!Recognizes()) GTEST_SKIP() << "libunwind is not available";
  OnFreshThread([] {
    const uint64_t mismatches_before = Mismatches(), unwitnessed_before = RepeatedStackCounters().unwitnessed.load();
    struct sigaction action {}, previous{};
    action.sa_handler = CaptureInHandler;
    sigaction(SIGUSR1, &action, &previous);
    StackId outside = 0, in_handler = 0;
    for (int i = 0; i < 10; ++i) {
      raise(SIGUSR1);
      if (in_handler == 0) in_handler = g_in_handler.id;
      EXPECT_EQ(g_in_handler.id, in_handler);
      const StackId id = PathA().id;  // interleaved: a path outside the handler
      if (outside == 0) outside = id;
      EXPECT_EQ(id, outside);
    }
    EXPECT_NE(in_handler, outside);
    sigaction(SIGUSR1, &previous, nullptr);
    EXPECT_GT(RepeatedStackCounters().unwitnessed.load(), unwitnessed_before) << "a signal frame is never witnessed";
    EXPECT_EQ(Mismatches(), mismatches_before);
  });
}

TEST(RepeatedStacks, AChangedWitnessIsAMiss) {
  RepeatedStacks table;
  uintptr_t words[2] = {0x1111, 0x2222};
  const auto at = [&](int i) { return reinterpret_cast<uintptr_t>(&words[i]); };
  table.Remember(/*outer_sp=*/0x1000, /*owner=*/7, /*id=*/42, {{at(0), 0x1111}, {at(1), 0x2222}});
  EXPECT_EQ(table.Find(0x1000, 7), 42u);
  EXPECT_EQ(table.Find(0x1008, 7), 0u) << "another frame";
  EXPECT_EQ(table.Find(0x1000, 8), 0u) << "another stack table";
  words[1] = 0x3333;
  EXPECT_EQ(table.Find(0x1000, 7), 0u);
}

TEST(RepeatedStacks, WalksOnlyForFramesThatMissedBeforeAndWithinBudget) {
  RepeatedStacks table;
  EXPECT_FALSE(table.ShouldWalk(0x5000)) << "first miss: remembered only";
  EXPECT_TRUE(table.ShouldWalk(0x5000)) << "second miss of the same frame";
  // Frames that each miss twice use up the free walks, then one per 256 misses.
  int walks = 1;
  for (uintptr_t sp = 0x6000; sp < 0x6000 + 64 * 16; sp += 16)
    for (int k = 0; k < 2; ++k) walks += table.ShouldWalk(sp) ? 1 : 0;
  EXPECT_EQ(walks, 8);
}

}  // namespace
}  // namespace streamcheck::tracer
