#include "tracer/host/guard_table.h"

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <memory>

namespace streamcheck::tracer::host {
namespace {

// The kernel's signal set is 8 bytes on x86-64; glibc's sigset_t begins with it.
constexpr long kKernelSigsetBytes = 8;

Address PageFloor(Address a) { return a & ~(GuardTable::PageSize() - 1); }
Address PageCeil(Address a) { return PageFloor(a + GuardTable::PageSize() - 1); }

int ProtectionOf(uint8_t rights) {
  if (rights == kReadWrite) return PROT_READ | PROT_WRITE;
  return rights == kReadOnly ? PROT_READ : PROT_NONE;
}

// Raw system calls: the preloaded library interposes mprotect() and the mask
// functions for the program (tracer/preload/), and must not take ours for the
// program's.
bool Protect(Address begin, Address end, uint8_t rights) {
  return syscall(SYS_mprotect, reinterpret_cast<void*>(begin), end - begin, ProtectionOf(rights)) == 0;
}

}  // namespace

// Asynchronous signals are blocked while the lock is held, so a program's
// handler never runs on a thread in the middle of a change (and touches a
// guarded page there: its fault would wait for the lock forever). The
// synchronous ones stay deliverable: blocking those makes a fault fatal.
class GuardTable::Locked {
 public:
  explicit Locked(const GuardTable& table) : lock_(const_cast<std::atomic<bool>&>(table.lock_)) {
    sigset_t block;
    sigfillset(&block);
    for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP}) sigdelset(&block, sig);
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, &block, &saved_, kKernelSigsetBytes);
    for (unsigned spins = 0; lock_.exchange(true, std::memory_order_acquire); ++spins) {
      while (lock_.load(std::memory_order_relaxed)) {
        if (spins++ < 1000) __builtin_ia32_pause();
        else sched_yield();
      }
    }
  }
  ~Locked() {
    lock_.store(false, std::memory_order_release);
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &saved_, nullptr, kKernelSigsetBytes);
  }
  Locked(const Locked&) = delete;
  Locked& operator=(const Locked&) = delete;

 private:
  std::atomic<bool>& lock_;
  sigset_t saved_;
};

GuardTable::GuardTable() = default;
GuardTable::~GuardTable() = default;

uint64_t GuardTable::PageSize() {
  static const uint64_t size = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return size;
}

const GuardTable::Region* GuardTable::FindRegionConst(Address p) const {
  auto it = regions_.upper_bound(p);
  if (it == regions_.begin()) return nullptr;
  --it;
  return p < it->first + it->second.size ? &it->second : nullptr;
}

Address GuardTable::RegionBaseOf(Address p) const {
  auto it = regions_.upper_bound(p);
  return it == regions_.begin() ? 0 : std::prev(it)->first;
}

void GuardTable::AddRegion(Address base, uint64_t size, RegionKind kind) {
  if (size == 0) return;
  Region r;
  r.size = size;
  r.kind = kind;
  if (kind == RegionKind::kWholeMapping) {
    r.page_begin = PageFloor(base);
    r.page_end = PageCeil(base + size);
  } else {
    r.page_begin = PageCeil(base);
    r.page_end = PageFloor(base + size);
    if (r.page_end < r.page_begin) r.page_end = r.page_begin;
  }
  Locked lock(*this);
  if (shut_down_) return;
  regions_[base] = r;
  region_count_.store(regions_.size(), std::memory_order_relaxed);
}

void GuardTable::RemoveRegion(Address base) {
  Locked lock(*this);
  auto it = regions_.find(base);
  if (it == regions_.end()) return;
  const Region gone = it->second;
  regions_.erase(it);
  region_count_.store(regions_.size(), std::memory_order_relaxed);
  for (size_t i = pending_.size(); i-- > 0;)
    if (pending_[i].region == base) DropOp(i);
  // What pending work on shared pages (another managed allocation's) still
  // wants stays; the rest opens.
  Reprotect(gone.page_begin, gone.page_end, [](uint8_t applied, uint8_t allowed) { return uint8_t(applied | allowed); });
  // Runs no other region shares forget their state, the program's marks
  // too: the addresses may be mapped afresh.
  for (auto run = runs_.lower_bound(gone.page_begin); run != runs_.end() && run->first < gone.page_end;) {
    const Address run_begin = run->first, run_end = run->second.end;
    const bool shared = std::any_of(regions_.begin(), regions_.end(), [&](const auto& other) {
      return other.second.page_begin < run_end && other.second.page_end > run_begin;
    });
    run = shared ? std::next(run) : runs_.erase(run);
  }
  Tidy(gone.page_begin, gone.page_end);
}

void GuardTable::SplitAt(Address at) {
  auto it = runs_.upper_bound(at);
  if (it == runs_.begin()) return;
  --it;
  if (it->first == at || it->second.end <= at) return;
  PageRun tail = it->second;
  it->second.end = at;
  runs_.emplace(at, tail);
}

void GuardTable::Materialize(Address begin, Address end) {
  SplitAt(begin);
  SplitAt(end);
  for (const PendingOp& op : pending_) {
    if (op.begin > begin && op.begin < end) SplitAt(op.begin);
    if (op.end > begin && op.end < end) SplitAt(op.end);
  }
  // Fill the gaps between runs with untouched runs.
  Address at = begin;
  auto it = runs_.lower_bound(begin);
  while (at < end) {
    const Address next = (it == runs_.end() || it->first >= end) ? end : it->first;
    if (at < next) {
      PageRun fresh;
      fresh.end = next;
      runs_.emplace(at, fresh);
      // Pending ops' bounds may fall inside the fresh run.
      for (const PendingOp& op : pending_) {
        if (op.begin > at && op.begin < next) SplitAt(op.begin);
        if (op.end > at && op.end < next) SplitAt(op.end);
      }
    }
    if (next == end) break;
    at = it->second.end;
    ++it;
  }
}

uint8_t GuardTable::AllowedAt(Address page) const {
  uint8_t allowed = kReadWrite;
  for (const PendingOp& op : pending_)
    if (page >= op.begin && page < op.end) allowed &= op.allows;
  return allowed;
}

template <typename Rights>
uint64_t GuardTable::Reprotect(Address begin, Address end, Rights&& rights) {
  if (begin >= end) return 0;
  Materialize(begin, end);
  uint64_t changed = 0;
  Address stretch_begin = 0, stretch_end = 0;
  uint8_t stretch_rights = 0;
  auto flush = [&] {
    if (stretch_begin != stretch_end) Protect(stretch_begin, stretch_end, stretch_rights);
    stretch_begin = stretch_end = 0;
  };
  for (auto it = runs_.lower_bound(begin); it != runs_.end() && it->first < end; ++it) {
    PageRun& run = it->second;
    if (run.program) continue;
    const uint8_t next = rights(run.applied, AllowedAt(it->first));
    if (next == run.applied) continue;
    run.applied = next;
    changed += (run.end - it->first) / PageSize();
    if (stretch_end != it->first || stretch_rights != next) flush();
    if (stretch_begin == stretch_end) stretch_begin = it->first, stretch_rights = next;
    stretch_end = run.end;
  }
  flush();
  Tidy(begin, end);
  return changed;
}

void GuardTable::Tidy(Address begin, Address end) {
  struct CountRuns {
    GuardTable& table;
    ~CountRuns() { table.run_count_.store(table.runs_.size(), std::memory_order_relaxed); }
  } count{*this};
  auto it = runs_.lower_bound(begin);
  if (it != runs_.begin()) --it;
  while (it != runs_.end() && it->first <= end) {
    PageRun& run = it->second;
    if (run.applied == kReadWrite && !run.program) {
      it = runs_.erase(it);
      continue;
    }
    auto next = std::next(it);
    if (next != runs_.end() && next->first == run.end && next->second.applied == run.applied &&
        next->second.program == run.program) {
      run.end = next->second.end;
      runs_.erase(next);
      continue;
    }
    it = next;
  }
}

bool GuardTable::Guard(const Range* ranges, size_t count) {
  Locked lock(*this);
  if (shut_down_) return false;
  bool any = false;
  for (size_t i = 0; i < count; ++i) {
    const Range& range = ranges[i];
    const Region* region = FindRegionConst(range.begin);
    if (region == nullptr) continue;
    const Address base = RegionBaseOf(range.begin);
    Address begin = range.size == 0 ? base : range.begin;
    Address end = range.size == 0 ? base + region->size : std::min(range.begin + range.size, base + region->size);
    begin = std::max(PageFloor(begin), region->page_begin);
    end = std::min(PageCeil(end), region->page_end);
    if (begin >= end) continue;
    PendingOp op;
    op.id = next_op_++;
    op.region = base;
    op.begin = begin;
    op.end = end;
    op.allows = range.device_may_write ? kNoAccess : kReadOnly;
    pending_.push_back(op);
    queued_.push_back({next_batch_, op.id});
    any = true;
    counters_.pages_guarded +=
        Reprotect(begin, end, [&](uint8_t applied, uint8_t) { return uint8_t(applied & op.allows); });
  }
  if (!any) return false;
  ++next_batch_;
  pending_ops_.store(pending_.size(), std::memory_order_relaxed);
  return true;
}

void GuardTable::Suspend(Address begin, uint64_t size, std::vector<SuspendedPages>* out) {
  if (size == 0 || !HasGuardedPages()) return;
  Locked lock(*this);
  const Address first = PageFloor(begin), end = PageCeil(begin + size);
  const size_t before = out->size();
  auto it = runs_.upper_bound(first);
  if (it != runs_.begin() && std::prev(it)->second.end > first) --it;
  for (; it != runs_.end() && it->first < end; ++it)
    if (!it->second.program && it->second.applied != kReadWrite)
      out->push_back({std::max(it->first, first), std::min(it->second.end, end)});
  for (size_t i = before; i < out->size(); ++i)
    Reprotect((*out)[i].begin, (*out)[i].end, [](uint8_t, uint8_t) { return uint8_t(kReadWrite); });
}

void GuardTable::Resume(const std::vector<SuspendedPages>& pages) {
  if (pages.empty()) return;
  Locked lock(*this);
  if (shut_down_) return;
  for (const SuspendedPages& p : pages)
    Reprotect(p.begin, p.end, [](uint8_t applied, uint8_t allowed) { return uint8_t(applied & allowed); });
}

void GuardTable::DropOp(size_t index) {
  pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(index));
}

// A program that queues work on host memory and never synchronizes its
// thread would grow the list without end: the analysed operations of one
// lane become one, over the pages they cover between them, opened when the
// host is ordered after the latest (conservative: a page may stay guarded
// longer, which costs a fault the engine judges).
void GuardTable::CompactPending() {
  constexpr size_t kMostPending = 256;
  if (pending_.size() <= kMostPending) return;
  std::vector<PendingOp> kept;
  for (const PendingOp& op : pending_) {
    if (!op.analysed) {
      kept.push_back(op);
      continue;
    }
    auto same_lane = std::find_if(kept.begin(), kept.end(), [&](const PendingOp& k) {
      return k.analysed && k.work.lane == op.work.lane && k.region == op.region;
    });
    if (same_lane == kept.end()) {
      kept.push_back(op);
      continue;
    }
    same_lane->begin = std::min(same_lane->begin, op.begin);
    same_lane->end = std::max(same_lane->end, op.end);
    same_lane->allows &= op.allows;
    same_lane->work.clock = std::max(same_lane->work.clock, op.work.clock);
  }
  pending_.swap(kept);
}

void GuardTable::NoteDeviceWork(DeviceWork work) {
  Locked lock(*this);
  if (queued_head_ == queued_.size()) return;
  const uint64_t batch = queued_[queued_head_].batch;
  std::vector<std::pair<Address, Address>> reopen;
  for (; queued_head_ < queued_.size() && queued_[queued_head_].batch == batch; ++queued_head_) {
    const uint64_t id = queued_[queued_head_].op;
    auto op = std::find_if(pending_.begin(), pending_.end(), [&](const PendingOp& p) { return p.id == id; });
    if (op == pending_.end()) continue;  // its region is gone
    if (work.valid()) {
      op->analysed = true;
      op->work = work;
    } else {
      reopen.emplace_back(op->begin, op->end);
      DropOp(static_cast<size_t>(op - pending_.begin()));
    }
  }
  if (queued_head_ == queued_.size()) queued_.clear(), queued_head_ = 0;
  for (const auto& [begin, end] : reopen)
    counters_.pages_opened_ordered +=
        Reprotect(begin, end, [](uint8_t applied, uint8_t allowed) { return uint8_t(applied | allowed); });
  CompactPending();
  pending_ops_.store(pending_.size(), std::memory_order_relaxed);
}

void GuardTable::OpenOrdered(const std::function<bool(DeviceWork)>& ordered) {
  Locked lock(*this);
  std::vector<std::pair<Address, Address>> reopen;
  for (size_t i = pending_.size(); i-- > 0;) {
    if (!pending_[i].analysed || !ordered(pending_[i].work)) continue;
    reopen.emplace_back(pending_[i].begin, pending_[i].end);
    DropOp(i);
  }
  for (const auto& [begin, end] : reopen)
    counters_.pages_opened_ordered +=
        Reprotect(begin, end, [](uint8_t applied, uint8_t allowed) { return uint8_t(applied | allowed); });
  pending_ops_.store(pending_.size(), std::memory_order_relaxed);
}

GuardTable::FaultVerdict GuardTable::OnFault(Address addr, bool write) {
  Locked lock(*this);
  const Address page = PageFloor(addr);
  auto it = runs_.upper_bound(page);
  const bool in_run = it != runs_.begin() && std::prev(it)->second.end > page;
  if (!in_run) {
    // Untouched: opened since the fault (another thread's fault, or the
    // worker), if it lies where we guard at all.
    const Region* region = FindRegionConst(addr);
    return region != nullptr && page >= region->page_begin && page < region->page_end ? FaultVerdict::kStale
                                                                                       : FaultVerdict::kNotOurs;
  }
  const PageRun& run = std::prev(it)->second;
  if (run.program) return FaultVerdict::kNotOurs;
  const uint8_t needed = write ? kReadWrite : kReadOnly;
  if ((run.applied & needed) == needed) return FaultVerdict::kStale;
  ++counters_.faults;
  Reprotect(page, page + PageSize(), [&](uint8_t applied, uint8_t) { return uint8_t(applied | needed); });
  return FaultVerdict::kOpened;
}

void GuardTable::ProgramChanged(Address addr, uint64_t size) {
  if (empty() || size == 0) return;
  Locked lock(*this);
  const Address begin = PageFloor(addr), end = PageCeil(addr + size);
  for (const auto& [base, region] : regions_) {
    const Address b = std::max(begin, region.page_begin), e = std::min(end, region.page_end);
    if (b >= e) continue;
    Materialize(b, e);
    for (auto it = runs_.lower_bound(b); it != runs_.end() && it->first < e; ++it) {
      if (!it->second.program) counters_.program_changed_pages += (it->second.end - it->first) / PageSize();
      it->second.program = true;
    }
    Tidy(b, e);
  }
}

void GuardTable::Shutdown() {
  Locked lock(*this);
  for (const auto& [begin, run] : runs_)
    if (!run.program && run.applied != kReadWrite) Protect(begin, run.end, kReadWrite);
  runs_.clear();
  run_count_.store(0, std::memory_order_relaxed);
  regions_.clear();
  pending_.clear();
  queued_.clear();
  queued_head_ = 0;
  shut_down_ = true;
  region_count_.store(0, std::memory_order_relaxed);
  pending_ops_.store(0, std::memory_order_relaxed);
}

void GuardTable::LockForFork() { fork_lock_ = std::make_unique<Locked>(*this); }

void GuardTable::UnlockInParent() { fork_lock_.reset(); }

// The child has one thread, this one: the lock is ours, and the pages'
// pending work is the parent's (a child cannot use its parent's CUDA
// context), so every page opens.
void GuardTable::ResetInChild() {
  fork_lock_.reset();
  Shutdown();
}

GuardCounters GuardTable::counters() const {
  Locked lock(*this);
  return counters_;
}

}  // namespace streamcheck::tracer::host
