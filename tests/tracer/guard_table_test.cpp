// tracer/host/guard_table.h with plain mmap'd memory standing in for pinned
// memory: which pages each operation's guard leaves the host, how they open
// (the engine's word, a fault, a CUDA call of their own), what the program
// changed itself, regions sharing pages, sixteen threads faulting at once
// while the guards change, and fork.
#include "tracer/host/guard_table.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tests/common/mapped_permissions.h"

namespace streamcheck::tracer::host {
namespace {

using Range = GuardTable::Range;
using DeviceWork = GuardTable::DeviceWork;
const uint64_t kPage = GuardTable::PageSize();

// What the host may do at `addr` now, from /proc/self/maps.
uint8_t RightsAt(const void* addr) {
  const std::string perms = streamcheck::testing::MappedPermissions(reinterpret_cast<uintptr_t>(addr));
  if (perms.size() < 2) return 0xff;
  return (perms[0] == 'r' ? kReadOnly : 0) | (perms[1] == 'w' ? 2 : 0);
}

class Mapping {
 public:
  explicit Mapping(size_t pages) : size_(pages * kPage) {
    base_ = static_cast<char*>(mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    std::memset(base_, 7, size_);
  }
  ~Mapping() { munmap(base_, size_); }
  char* page(size_t i) const { return base_ + i * kPage; }
  Address at(size_t i) const { return reinterpret_cast<Address>(page(i)); }
  size_t size() const { return size_; }

 private:
  size_t size_;
  char* base_;
};

// The rights of pages [0, n) of m, as a string: '-' none, 'r' read, 'w' read+write.
std::string Pages(const Mapping& m, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t r = RightsAt(m.page(i));
    out += r == kReadWrite ? 'w' : r == kReadOnly ? 'r' : r == kNoAccess ? '-' : '?';
  }
  return out;
}

Range Writes(Address begin, uint64_t size) { return {begin, size, true}; }
Range Reads(Address begin, uint64_t size) { return {begin, size, false}; }

constexpr DeviceWork Work(uint32_t lane, uint32_t clock) { return {lane, clock}; }

TEST(GuardTable, EachOperationGuardsItsPagesForWhatItDoes) {
  Mapping m(8);
  GuardTable t;
  t.AddRegion(m.at(0), m.size(), GuardTable::RegionKind::kWholeMapping);
  Range write = Writes(m.at(2) + 100, 2 * kPage - 200);  // inside pages 2 and 3
  ASSERT_TRUE(t.Guard(&write, 1));
  Range read = Reads(m.at(5), kPage);
  ASSERT_TRUE(t.Guard(&read, 1));
  EXPECT_EQ(Pages(m, 8), "ww--wrww");
  Range outside = Writes(m.at(0) + m.size(), kPage);
  EXPECT_FALSE(t.Guard(&outside, 1));
  EXPECT_EQ(t.counters().pages_guarded, 3u);
}

TEST(GuardTable, PagesOpenWhenTheHostIsOrderedAfterAllTheirWork) {
  Mapping m(6);
  GuardTable t;
  t.AddRegion(m.at(0), m.size(), GuardTable::RegionKind::kWholeMapping);
  Range a = Writes(m.at(0), 4 * kPage), b = Reads(m.at(2), 4 * kPage);
  ASSERT_TRUE(t.Guard(&a, 1));
  t.NoteDeviceWork(Work(1, 5));
  ASSERT_TRUE(t.Guard(&b, 1));
  t.NoteDeviceWork(Work(2, 9));
  EXPECT_EQ(Pages(m, 6), "----rr");
  // Ordered after lane 1's 5th operation (a) but not lane 2's 9th (b).
  auto knows = [](uint32_t lane1, uint32_t lane2) {
    return [=](DeviceWork w) { return w.clock <= (w.lane == 1 ? lane1 : lane2); };
  };
  t.OpenOrdered(knows(4, 8));
  EXPECT_EQ(Pages(m, 6), "----rr");
  t.OpenOrdered(knows(5, 8));
  EXPECT_EQ(Pages(m, 6), "wwrrrr");
  t.OpenOrdered(knows(5, 9));
  EXPECT_EQ(Pages(m, 6), "wwwwww");
  EXPECT_FALSE(t.HasPendingWork());
  EXPECT_EQ(t.counters().pages_opened_ordered, 8u);  // pages 2 and 3 loosened twice
}

// Only the operation's record can say which device work it became; until the
// worker has analysed it, no synchronization opens its pages.
TEST(GuardTable, WorkNotYetAnalysedStaysGuarded) {
  Mapping m(2);
  GuardTable t;
  t.AddRegion(m.at(0), m.size(), GuardTable::RegionKind::kWholeMapping);
  Range a = Writes(m.at(0), kPage);
  ASSERT_TRUE(t.Guard(&a, 1));
  t.OpenOrdered([](DeviceWork) { return true; });
  EXPECT_EQ(Pages(m, 2), "-w");
  t.NoteDeviceWork(Work(1, 1));
  t.OpenOrdered([](DeviceWork) { return true; });
  EXPECT_EQ(Pages(m, 2), "ww");
}

TEST(GuardTable, WorkThatNeverRunsOpensAtOnce) {
  Mapping m(2);
  GuardTable t;
  t.AddRegion(m.at(0), m.size(), GuardTable::RegionKind::kWholeMapping);
  Range a = Writes(m.at(0), kPage);
  ASSERT_TRUE(t.Guard(&a, 1));
  t.NoteDeviceWork(DeviceWork{});  // captured into a graph
  EXPECT_EQ(Pages(m, 2), "ww");
  EXPECT_FALSE(t.HasPendingWork());
}

TEST(GuardTable, AFaultOpensItsPageForWhatFaulted) {
  Mapping m(3);
  GuardTable t;
  t.AddRegion(m.at(0), m.size(), GuardTable::RegionKind::kWholeMapping);
  Range a = Writes(m.at(0), 2 * kPage), b = Reads(m.at(2), kPage);
  ASSERT_TRUE(t.Guard(&a, 1));
  ASSERT_TRUE(t.Guard(&b, 1));
  EXPECT_EQ(t.OnFault(m.at(0) + 12, /*write=*/false), GuardTable::FaultVerdict::kOpened);
  EXPECT_EQ(Pages(m, 3), "r-r");
  EXPECT_EQ(t.OnFault(m.at(0) + 12, /*write=*/false), GuardTable::FaultVerdict::kStale);
  EXPECT_EQ(t.OnFault(m.at(0) + 12, /*write=*/true), GuardTable::FaultVerdict::kOpened);
  EXPECT_EQ(t.OnFault(m.at(2), /*write=*/true), GuardTable::FaultVerdict::kOpened);
  EXPECT_EQ(Pages(m, 3), "w-w");
  EXPECT_EQ(t.OnFault(m.at(0) + m.size(), false), GuardTable::FaultVerdict::kNotOurs);
  EXPECT_EQ(t.counters().faults, 3u);
}

TEST(GuardTable, ACudaCallsOwnHostPagesOpenForItAndCloseAfter) {
  Mapping m(4);
  GuardTable t;
  t.AddRegion(m.at(0), m.size(), GuardTable::RegionKind::kWholeMapping);
  Range a = Writes(m.at(0), 4 * kPage);
  ASSERT_TRUE(t.Guard(&a, 1));
  std::vector<GuardTable::SuspendedPages> suspended;
  t.Suspend(m.at(1) + 8, kPage, &suspended);
  EXPECT_EQ(Pages(m, 4), "-ww-");
  m.page(1)[8] = 1;  // the driver's own access
  t.Resume(suspended);
  EXPECT_EQ(Pages(m, 4), "----");
}

// The program's own mprotect()/munmap() (reported by the preloaded library
// before it happens): its pages are never guarded, opened or restored again.
TEST(GuardTable, PagesTheProgramChangedAreItsOwn) {
  Mapping m(4);
  GuardTable t;
  t.AddRegion(m.at(0), m.size(), GuardTable::RegionKind::kWholeMapping);
  Range a = Writes(m.at(0), 4 * kPage);
  ASSERT_TRUE(t.Guard(&a, 1));
  t.NoteDeviceWork(Work(1, 1));
  t.ProgramChanged(m.at(1), kPage);
  ASSERT_EQ(mprotect(m.page(1), kPage, PROT_READ), 0);  // the program's call
  EXPECT_EQ(t.OnFault(m.at(1), /*write=*/true), GuardTable::FaultVerdict::kNotOurs);
  t.OpenOrdered([](DeviceWork) { return true; });
  EXPECT_EQ(Pages(m, 4), "wrww");
  ASSERT_TRUE(t.Guard(&a, 1));
  EXPECT_EQ(Pages(m, 4), "-r--");
  t.RemoveRegion(m.at(0));
  EXPECT_EQ(Pages(m, 4), "wrww");
  EXPECT_EQ(t.counters().program_changed_pages, 1u);
}

TEST(GuardTable, RegisteredMemoryGuardsOnlyItsWholePages) {
  Mapping m(4);
  GuardTable t;
  // Registered from the middle of page 0 to the middle of page 3.
  t.AddRegion(m.at(0) + 100, 3 * kPage, GuardTable::RegionKind::kInnerPages);
  Range a = Writes(m.at(0) + 100, 3 * kPage);
  ASSERT_TRUE(t.Guard(&a, 1));
  EXPECT_EQ(Pages(m, 4), "w--w");
}

// Managed allocations may share a page: one allocation going away leaves the
// page guarded for the other's pending work.
TEST(GuardTable, RegionsSharingAPageKeepEachOthersGuards) {
  Mapping m(2);
  GuardTable t;
  t.AddRegion(m.at(0), 256, GuardTable::RegionKind::kWholeMapping);
  t.AddRegion(m.at(0) + 256, 256, GuardTable::RegionKind::kWholeMapping);
  Range a = Writes(m.at(0), 256), b = Writes(m.at(0) + 256, 0);
  ASSERT_TRUE(t.Guard(&a, 1));
  ASSERT_TRUE(t.Guard(&b, 1));  // the whole allocation, as a kernel's pointer argument
  t.RemoveRegion(m.at(0));
  EXPECT_EQ(Pages(m, 2), "-w");
  t.RemoveRegion(m.at(0) + 256);
  EXPECT_EQ(Pages(m, 2), "ww");
}

TEST(GuardTable, APendingListThatNeverEndsIsCompacted) {
  Mapping m(2);
  GuardTable t;
  t.AddRegion(m.at(0), m.size(), GuardTable::RegionKind::kWholeMapping);
  Range a = Writes(m.at(0), kPage), b = Reads(m.at(1), kPage);
  for (uint32_t i = 1; i <= 1000; ++i) {
    ASSERT_TRUE(t.Guard(i % 2 ? &a : &b, 1));
    t.NoteDeviceWork(Work(1, i));
  }
  EXPECT_EQ(Pages(m, 2), "-r");
  // Compacted or not, the last two are still pending.
  t.OpenOrdered([](DeviceWork w) { return w.clock <= 998; });
  EXPECT_EQ(Pages(m, 2), "-r");
  t.OpenOrdered([](DeviceWork w) { return w.clock <= 1000; });
  EXPECT_EQ(Pages(m, 2), "ww");
}

// The guards' own fault handler for the tests below: opens the page, as the
// tracer's does (without the record).
GuardTable* g_table = nullptr;
std::atomic<int> g_not_ours{0};

void OnSegv(int, siginfo_t* info, void* context) {
  const auto* uc = static_cast<const ucontext_t*>(context);
  const bool write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
  if (g_table->OnFault(reinterpret_cast<Address>(info->si_addr), write) == GuardTable::FaultVerdict::kNotOurs) {
    g_not_ours.fetch_add(1);
    _exit(99);
  }
}

class WithFaultHandler : public ::testing::Test {
 protected:
  void SetUp() override {
    struct sigaction sa {};
    sa.sa_sigaction = OnSegv;
    sa.sa_flags = SA_SIGINFO;
    sigfillset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &previous_);
    g_table = &table_;
  }
  void TearDown() override {
    sigaction(SIGSEGV, &previous_, nullptr);
    g_table = nullptr;
  }
  GuardTable table_;

 private:
  struct sigaction previous_ {};
};

// Sixteen threads read and write guarded pages at once while another thread
// guards them again and the worker's side opens them: every access completes
// with the right value, nothing is left protected at the end.
TEST_F(WithFaultHandler, SixteenThreadsFaultWhileTheGuardsChange) {
  constexpr size_t kPages = 32;
  constexpr int kThreads = 16, kRounds = 200;
  Mapping m(kPages);
  table_.AddRegion(m.at(0), m.size(), GuardTable::RegionKind::kWholeMapping);
  std::atomic<bool> stop{false}, guarded{false};
  std::thread guarding([&] {
    for (uint32_t clock = 1; !stop.load(); ++clock) {
      Range all = clock % 3 ? Writes(m.at(0), m.size()) : Reads(m.at(0), m.size());
      table_.Guard(&all, 1);
      table_.NoteDeviceWork(Work(1, clock));
      if (clock % 2) table_.OpenOrdered([&](DeviceWork w) { return w.clock + 1 < clock; });
      guarded = true;
    }
  });
  std::vector<std::thread> threads;
  std::atomic<long> wrong{0};
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      // From the first guard on, the latest work keeps every page guarded:
      // the first access faults however the threads are scheduled (on a
      // loaded machine they could otherwise all finish before it).
      while (!guarded.load()) std::this_thread::yield();
      for (int round = 0; round < kRounds; ++round) {
        // Each thread owns one byte per page, read back what it wrote.
        volatile char* p = m.page((i + round) % kPages) + i;
        *p = static_cast<char>(round);
        if (*p != static_cast<char>(round)) wrong.fetch_add(1);
        if (m.page(round % kPages)[kThreads + 1] != 7) wrong.fetch_add(1);  // a shared read
      }
    });
  for (std::thread& th : threads) th.join();
  stop = true;
  guarding.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(g_not_ours.load(), 0);
  EXPECT_GT(table_.counters().faults, 0u);
  table_.RemoveRegion(m.at(0));
  EXPECT_EQ(Pages(m, kPages), std::string(kPages, 'w'));
}

// fork() while pages are guarded: the child (after the atfork handler's
// ResetInChild) reads and writes them without a fault; the parent's stay guarded.
TEST_F(WithFaultHandler, AForkedChildGetsItsPagesBack) {
  Mapping m(2);
  table_.AddRegion(m.at(0), m.size(), GuardTable::RegionKind::kWholeMapping);
  Range a = Writes(m.at(0), m.size());
  ASSERT_TRUE(table_.Guard(&a, 1));
  table_.LockForFork();
  const pid_t child = fork();
  if (child == 0) {
    table_.ResetInChild();
    g_table = nullptr;  // a fault now would crash the child: none may come
    signal(SIGSEGV, SIG_DFL);
    m.page(1)[0] = static_cast<char>(m.page(0)[0] + 1);
    _exit(m.page(1)[0] == 8 ? 0 : 1);
  }
  table_.UnlockInParent();
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(Pages(m, 2), "--");
}

}  // namespace
}  // namespace streamcheck::tracer::host
