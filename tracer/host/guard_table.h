// Guard pages: the pages of host-visible memory (pinned, registered, managed)
// that device work queued but not yet known complete may touch are made
// inaccessible to the host (PROT_NONE while the work may write them,
// PROT_READ while it only reads them), so a host access faults, and the
// fault becomes a host access the engine judges (host_guards.h). The pages
// open again without a fault once the engine says a host thread is ordered
// after all the work on them (a synchronization, a successful query, a
// synchronous call: the analysis worker asks after each).
//
// Decided conservatively on the program's side: a page left protected too
// long costs one fault, which the engine then judges ordered (no finding);
// pages are opened only on the engine's word, and then for every thread
// (protection is per process): a thread that is not itself ordered after the
// work and touches the page later is not observed (a missed race, never a
// false one). See docs/HOST_GUARDS.md for every such case.
//
// Who calls what, and under which lock (tracer lock -> guard lock, never the
// other way):
//   * the program's threads, under the tracer's lock: regions come and go
//     (AddRegion, RemoveRegion), an operation is about to be queued (Guard),
//     a CUDA call that touches host memory itself starts and ends (Suspend,
//     Resume); InRegion reads the regions under the tracer's lock alone;
//   * the analysis worker: NoteDeviceWork after each record Guard marked,
//     OpenOrdered after each record that may order its thread;
//   * the SIGSEGV handler (any thread): OnFault;
//   * the preloaded library's mprotect/munmap interposition: ProgramChanged.
// Every change takes the guard lock with the thread's asynchronous signals
// blocked, so a program's signal handler never interrupts a change on its
// own thread; the fault handler runs with them blocked too.
// No CUDA here: unit-tested with plain mmap'd memory (tests/tracer/guard_table_test.cpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "runtime/engine.h"
#include "runtime/ids.h"
#include "tracer/host/page_span.h"

namespace streamcheck::tracer::host {

// What the host may do with a page, as protection bits: none, read, read+write.
enum HostRights : uint8_t { kNoAccess = 0, kReadOnly = 1, kReadWrite = 3 };

struct GuardCounters {
  uint64_t pages_guarded = 0;          // page protections tightened for pending device work
  uint64_t faults = 0;                 // faults in guarded pages, each page then opened
  uint64_t pages_opened_ordered = 0;   // pages opened without a fault: the host was ordered after their work
  uint64_t program_changed_pages = 0;  // pages the program mprotect'ed or unmapped itself: theirs from then on
};

class GuardTable {
 public:
  using DeviceWork = Engine::DeviceWork;
  // How a region's pages may be guarded. kWholeMapping: the allocation owns
  // its pages to the page ends (cudaHostAlloc's, cudaMallocManaged's
  // mappings; managed allocations may share a page with other managed ones,
  // which then fault too, and are judged). kInnerPages: only the pages wholly
  // inside it (cudaHostRegister'd memory shares its edge pages with whatever
  // the program keeps there, malloc's bookkeeping among it).
  enum class RegionKind : uint8_t { kWholeMapping, kInnerPages };
  // One range an operation touches on the device's side.
  struct Range {
    Address begin = 0;
    uint64_t size = 0;  // 0: the whole region holding `begin` (a kernel's pointer argument)
    bool device_may_write = true;
  };
  // Pages opened for a CUDA call that reads or writes them on the host's side.
  using SuspendedPages = PageSpan;

  GuardTable();
  ~GuardTable();
  GuardTable(const GuardTable&) = delete;
  GuardTable& operator=(const GuardTable&) = delete;

  // The program's side, under the tracer's lock.
  void AddRegion(Address base, uint64_t size, RegionKind kind);
  // Restores what the guards took from the region's pages and forgets it.
  void RemoveRegion(Address base);
  bool empty() const { return region_count_.load(std::memory_order_relaxed) == 0; }
  bool InRegion(Address p) const { return FindRegionConst(p) != nullptr; }
  // Guards the pages of `ranges` for one operation about to be queued; true
  // when any page was guarded for it: the operation's record then carries
  // guards_host_pages, and NoteDeviceWork follows once it is analysed.
  bool Guard(const Range* ranges, size_t count);
  // Opens the guarded pages of [begin, begin+size) for a CUDA call about to
  // read or write them itself (the driver may do so on the calling thread),
  // and appends them to *out; Resume guards them again as pending work wants.
  void Suspend(Address begin, uint64_t size, std::vector<SuspendedPages>* out);
  void Resume(const std::vector<SuspendedPages>& pages);

  // The analysis worker. The device work the oldest marked operation became
  // (invalid: none, e.g. it was captured into a graph: its pages open).
  void NoteDeviceWork(DeviceWork work);
  bool HasPendingWork() const { return pending_ops_.load(std::memory_order_relaxed) != 0; }
  // Some page is guarded (or was, until the last change): no lock.
  bool HasGuardedPages() const { return run_count_.load(std::memory_order_relaxed) != 0; }
  // Opens the pages whose every pending operation `ordered` says the host is
  // now ordered after.
  void OpenOrdered(const std::function<bool(DeviceWork)>& ordered);

  // The SIGSEGV handler: a fault at `addr` in a guarded page opens it (for
  // reading after a read fault, entirely after a write) and returns kOpened;
  // kStale: the page is open already (another thread opened it meanwhile),
  // retry; kNotOurs: the program's own fault.
  enum class FaultVerdict { kNotOurs, kStale, kOpened };
  FaultVerdict OnFault(Address addr, bool write);

  // The program (or a library in it) mprotect'ed or unmapped these bytes:
  // their pages are the program's from then on, never guarded or opened again.
  void ProgramChanged(Address addr, uint64_t size);
  // Restores every page and forgets everything; no more guarding (exit, a
  // forked child, a SIGSEGV handler replaced behind our back).
  void Shutdown();
  // fork(): held across it; the child restores every page and stops.
  void LockForFork();
  void UnlockInParent();
  void ResetInChild();

  GuardCounters counters() const;
  static uint64_t PageSize();

 private:
  struct Region {
    uint64_t size = 0;
    RegionKind kind = RegionKind::kWholeMapping;
    Address page_begin = 0, page_end = 0;  // the pages that may be guarded
  };
  // Pages with the same state, [begin, end); pages in no run are untouched
  // (read+write, not the program's). Regions may share pages (managed
  // allocations do), so the state is per page, not per region.
  struct PageRun {
    Address end = 0;
    uint8_t applied = kReadWrite;
    bool program = false;  // the program changed or unmapped it: never touched again
  };
  struct PendingOp {
    uint64_t id = 0;
    Address region = 0;
    Address begin = 0, end = 0;  // pages
    uint8_t allows = kNoAccess;
    bool analysed = false;
    DeviceWork work;
  };
  struct QueuedOp {
    uint64_t batch;
    uint64_t op;
  };
  class Locked;  // the lock, with the thread's asynchronous signals blocked

  const Region* FindRegionConst(Address p) const;
  Address RegionBaseOf(Address p) const;
  // Splits the run holding `at` so a run starts there.
  void SplitAt(Address at);
  // Gives every page of [begin, end) a run (untouched pages get fresh ones),
  // split at begin, end and the bounds of pending operations inside.
  void Materialize(Address begin, Address end);
  // Each run of [begin, end) (not the program's) to rights(applied, allowed),
  // where allowed is what pending work allows there; protections change in
  // as few calls as the runs allow. Returns how many pages changed.
  template <typename Rights>
  uint64_t Reprotect(Address begin, Address end, Rights&& rights);
  uint8_t AllowedAt(Address page) const;
  // Merges equal neighbours and drops runs back to untouched, in [begin, end).
  void Tidy(Address begin, Address end);
  void DropOp(size_t index);
  void CompactPending();

  std::map<Address, Region> regions_;  // by base
  std::map<Address, PageRun> runs_;    // by begin
  std::vector<PendingOp> pending_;
  std::vector<QueuedOp> queued_;  // marked operations the worker has not reached, oldest first
  size_t queued_head_ = 0;
  uint64_t next_batch_ = 1, next_op_ = 1;
  bool shut_down_ = false;
  GuardCounters counters_;
  std::atomic<size_t> region_count_{0};
  std::atomic<size_t> pending_ops_{0};
  std::atomic<size_t> run_count_{0};  // runs_.size(), for HasGuardedPages
  std::atomic<bool> lock_{false};
  std::unique_ptr<Locked> fork_lock_;  // held from LockForFork to the unlock on either side
};

}  // namespace streamcheck::tracer::host
