#include "tracer/host/host_guards.h"

#include <time.h>

#include <cstdio>
#include <mutex>

#include "runtime/transfer_semantics.h"
#include "store/run_session.h"
#include "tracer/analysis_worker.h"
#include "tracer/frameworks/framework_ops.h"
#include "tracer/frameworks/framework_plugin.h"
#include "tracer/host/signal_chain.h"
#include "tracer/stacks/native_unwinder.h"
#include "tracer/thread_state.h"
#include "tracer/tracer.h"

namespace streamcheck::tracer::host {
namespace {

HostGuards* g_guards = nullptr;  // the process's, for the signal handler

// Records after which their thread may be ordered after device work: the
// host synchronizations, successful queries and synchronous calls the
// engine models (engine.cpp, transfer_semantics.h).
bool MayOrderItsThread(const TraceRecord& r) {
  switch (r.op) {
    case OpCode::kDeviceSynchronize:
    case OpCode::kStreamSynchronize:
    case OpCode::kEventSynchronize:
    case OpCode::kFree:
    case OpCode::kDeviceReset:
      return true;
    case OpCode::kStreamQuery:
    case OpCode::kEventQuery:
    case OpCode::kEventElapsedTime:
      return r.result == 0;
    case OpCode::kMemcpy:
    case OpCode::kMemset:
      return !r.is_async;
    default:
      return false;
  }
}

// The tracer's lock, from a signal handler: the holder may be a thread that
// waits for something the faulting thread holds (a CUDA call's own lock, on a
// path this one cannot see), so the wait is bounded and the record then
// dropped (counted) rather than the program hung.
bool LockWithin(TracerLock& lock, long milliseconds) {
  for (long waited_us = 0; !lock.try_lock(); waited_us += 50) {
    if (waited_us >= milliseconds * 1000) return false;
    const timespec nap{0, 50000};
    nanosleep(&nap, nullptr);
  }
  return true;
}

// In the signal handler: a page a followed host function's fault opened,
// kept in the thread's fixed array for AfterFollowedHostFunction.
void NoteOpenedByHostFunction(Address fault) {
  ThreadState* state = internal::t_thread_state;
  if (state == nullptr || state->followed_host_functions == 0) return;
  const uint8_t n = state->host_function_opened_count;
  if (n == state->host_function_opened.size()) return;
  const Address page = fault & ~(GuardTable::PageSize() - 1);
  if (n > 0 && state->host_function_opened[n - 1].begin == page) return;  // a read, then a write of one page
  state->host_function_opened[n] = {page, page + GuardTable::PageSize()};
  state->host_function_opened_count = n + 1;
}

void BeforeFatalSegv() {
  if (Tracer* t = GlobalTracer()) t->SaveForCrash();
}

void ProgramChangesMemory(void* addr, size_t len);

}  // namespace

HostGuards* HostGuards::Start(Tracer& tracer, bool wanted) {
  // Lives until exit: the handler may run during teardown. (Tests start
  // one per tracer they make; the handler serves the latest.)
  auto* guards = new HostGuards(tracer);
  g_guards = guards;
  if (!wanted) {
    guards->off_ = Off::kAskedTo;
    return guards;
  }
  if (!SignalChain::Install(OnGuardFault, BeforeFatalSegv, ProgramChangesMemory)) {
    guards->off_ = Off::kNoPreload;
    return guards;
  }
  // The tracer's own code only: a framework plugin's frames (the PyTorch
  // dispatch-key observer) sit under every op the program runs.
  guards->tracer_code_.AddObjectsNamed({"libstreamcheck_tracer"});
  guards->cuda_code_.AddObjectsNamed({"libcuda.so", "libcudart", "libcupti", "libnvidia-"});
  guards->on_ = true;
  return guards;
}

namespace {
void ProgramChangesMemory(void* addr, size_t len) {
  if (g_guards != nullptr) g_guards->ProgramChanged(reinterpret_cast<Address>(addr), len);
}
}  // namespace

void HostGuards::ProgramChanged(Address addr, uint64_t size) {
  if (MayGuard(addr, addr + size)) table_.ProgramChanged(addr, size);
}

void HostGuards::WidenSpan(Address base, uint64_t size) {
  const uint64_t page = GuardTable::PageSize();
  const Address begin = base - base % page, end = base + size + page;
  if (begin < low_.load()) low_.store(begin);
  if (end > high_.load()) high_.store(end);
}

void HostGuards::TurnOff(Off why) {
  if (!on()) return;
  on_ = false;
  off_ = why;
  table_.Shutdown();
  if (why == Off::kHandlerReplaced)
    std::fprintf(stderr,
                 "streamcheck: the program replaced the SIGSEGV handler behind the preloaded library (a raw "
                 "rt_sigaction system call): host accesses are no longer observed\n");
}

void HostGuards::Guard(TraceRecord& r) {
  // A library's own work (TraceRecord::library: NCCL inside its calls and on
  // its threads, cuBLAS's workspace) is never reported (runtime/engine.h), so
  // its memory is no region and its work guards nothing: faults there (NCCL's
  // proxy thread polls its pinned FIFOs) would cost and tell nothing.
  if (!on() || r.library != 0) return;
  switch (r.op) {
    case OpCode::kMalloc:
      if (r.memory_kind != MemoryKind::kPinnedHost && r.memory_kind != MemoryKind::kManaged) return;
      table_.AddRegion(r.dst, r.size, GuardTable::RegionKind::kWholeMapping);
      return WidenSpan(r.dst, r.size);
    case OpCode::kHostRegister:
      table_.AddRegion(r.dst, r.size, GuardTable::RegionKind::kInnerPages);
      return WidenSpan(r.dst, r.size);
    default:
      break;
  }
  if (table_.empty() && graphs_.empty()) return;
  thread_local std::vector<GuardTable::Range> ranges;
  ranges.clear();
  // A graph's node (cudaGraphAdd*Node) is work of its kind, run at the graph's launches.
  const bool node = r.op == OpCode::kGraphAddNode;
  RangesOf(r, node ? r.node_op : r.op, node, &ranges);
  if (node) return graphs_.AddNode(r.graph, ranges);
  const bool work = r.op == OpCode::kKernelLaunch || r.op == OpCode::kMemcpy || r.op == OpCode::kMemset ||
                    r.op == OpCode::kHostFunc;
  if ((!work || graphs_.capturing()) && graphs_.Captured(r, ranges)) return;  // guarded at its graph's launches
  if (r.op == OpCode::kGraphLaunch) {
    const std::vector<GuardTable::Range>* pages = graphs_.OfExec(r.graph_exec);
    if (pages == nullptr) return;
    ranges = *pages;
  }
  if (ranges.empty() || !HandlerStillFirst()) return;
  r.guards_host_pages = table_.Guard(ranges.data(), ranges.size());
}

// The host-visible bytes the work `op` of record `r` touches on the device's
// side. A graph node's copy or memset runs asynchronously whatever it says.
void HostGuards::RangesOf(const TraceRecord& r, OpCode op, bool graph_node, std::vector<GuardTable::Range>* out) {
  if (table_.empty()) return;
  switch (op) {
    case OpCode::kMemcpy:
      if (!r.is_async && !graph_node) return;
      if (MaybeInRegion(r.dst) && table_.InRegion(r.dst))
        out->push_back({r.dst, StridedExtent(r.size, r.height, r.dst_pitch), true});
      if (MaybeInRegion(r.src) && table_.InRegion(r.src))
        out->push_back({r.src, StridedExtent(r.size, r.height, r.src_pitch), false});
      return;
    case OpCode::kMemset:
      if ((!r.is_async && !graph_node) || !MaybeInRegion(r.dst) || !table_.InRegion(r.dst)) return;
      out->push_back({r.dst, StridedExtent(r.size, r.height, r.dst_pitch), true});
      return;
    case OpCode::kKernelLaunch:
      // A pointer argument guards its whole region (the kernel's bounds are
      // the worker's to find): wider than the access at worst, which costs
      // faults the engine judges.
      if (!r.pointer_words) return;
      for (const MemoryAccess& w : r.accesses)
        if (MaybeInRegion(w.addr) && table_.InRegion(w.addr)) out->push_back({w.addr, 0, MayWrite(w.mode)});
      return;
    default:
      return;
  }
}

// Protecting pages without our handler first would hand their faults to
// the program's. Only a raw rt_sigaction system call can take its place
// (the preloaded library sees every other way), so it is checked on the
// first guard and every 16th after, not on each: a system call each time
// cost a copy more than its mprotect.
bool HostGuards::HandlerStillFirst() {
  if (guards_since_check_++ % 16 != 0 || SignalChain::StillFirst()) return true;
  TurnOff(Off::kHandlerReplaced);
  return false;
}

void HostGuards::ForgetAtEntry(Address base) {
  if (!on() || table_.empty() || !MaybeInRegion(base)) return;
  std::lock_guard<TracerLock> lock(tracer_.tracer_lock());  // regions change under it (InRegion reads them so)
  table_.RemoveRegion(base);
}

void HostGuards::Suspend(Address begin, uint64_t size) {
  if (!on() || table_.empty() || !MaybeInRegion(begin) || size == 0) return;
  table_.Suspend(begin, size, &ThisThread().suspended_guards);
}

void HostGuards::Resume() {
  std::vector<PageSpan>& suspended = ThisThread().suspended_guards;
  if (suspended.empty()) return;
  table_.Resume(suspended);
  suspended.clear();
}

void HostGuards::AfterFollowedHostFunction() {
  ThreadState& thread = ThisThread();
  if (thread.host_function_opened_count == 0) return;
  const std::vector<PageSpan> opened(thread.host_function_opened.begin(),
                                     thread.host_function_opened.begin() + thread.host_function_opened_count);
  thread.host_function_opened_count = 0;
  if (on()) table_.Resume(opened);
}

void HostGuards::AfterAnalysis(TraceRecord& r, Engine& engine, bool processed) {
  if (r.guards_host_pages) {
    table_.NoteDeviceWork(processed ? engine.LastDeviceWork() : Engine::DeviceWork{});
    r.guards_host_pages = false;  // the tracer's own: not for the trace
  }
  if (!processed || !table_.HasPendingWork() || !MayOrderItsThread(r)) return;
  const ThreadId thread = r.thread;
  table_.OpenOrdered([&](Engine::DeviceWork work) { return engine.HostThreadOrderedAfter(thread, work); });
}

void HostGuards::Shutdown() {
  on_ = false;
  table_.Shutdown();
}

void HostGuards::AfterForkInChild() {
  table_.ResetInChild();
  if (on()) off_ = Off::kForkedChild;
  on_ = false;
  host_accesses_ = tracer_faults_ = cuda_faults_ = dropped_ = 0;
}

std::map<std::string, uint64_t> HostGuards::Counters() const {
  namespace names = store::counters;
  const GuardCounters c = table_.counters();
  std::map<std::string, uint64_t> out{
      {std::string(names::kHostGuardsEnabled), off_ == Off::kNo || off_ == Off::kForkedChild ? 1 : 0},
      {std::string(names::kPagesGuarded), c.pages_guarded},
      {std::string(names::kGuardFaults), c.faults},
      {std::string(names::kHostAccesses), host_accesses_.load()},
      {std::string(names::kFaultsOfTheTracer), tracer_faults_.load()},
      {std::string(names::kFaultsInsideCuda), cuda_faults_.load()},
      {std::string(names::kHostAccessesDropped), dropped_.load()},
      {std::string(names::kPagesOpenedWithoutFault), c.pages_opened_ordered},
      {std::string(names::kPagesLeftToTheProgram), c.program_changed_pages},
  };
  std::string_view off;
  switch (off_) {
    case Off::kNo: break;
    case Off::kAskedTo: off = names::kHostGuardsOffByRequest; break;  // streamcheck run --no-host-guards
    case Off::kNoPreload: off = names::kHostGuardsOffWithoutPreload; break;
    case Off::kHandlerReplaced: off = names::kHostGuardsOffHandlerReplaced; break;
    case Off::kForkedChild: off = names::kHostGuardsForkedChild; break;  // not "off": its parent guards
  }
  if (!off.empty()) out[std::string(off)] = 1;
  return out;
}

// Whose access: the tracer's own reads (on its worker, or from its code),
// CUDA's (inside a CUDA call, or a host function the tracer does not follow,
// on the driver's thread: the engine cannot place those, and the calls' own
// host accesses are modeled from their records), or the program's (its own
// code, and a followed host function's: the engine runs it on its own clock
// joined to its stream's, runtime/engine_host_funcs.cpp).
FaultOrigin HostGuards::OriginOfFault(const FaultSite& site) const {
  if (AnalysisWorker::OnWorkerThread()) return FaultOrigin::kTracer;
  const ThreadState* state = internal::t_thread_state;
  if (state != nullptr && state->runtime_depth > 0) return FaultOrigin::kCuda;
  uint64_t stack[64];
  const int n = NativeUnwinder::Get().Backtrace(stack, 64, 0);
  return OriginOf(site.pc, stack, n > 0 ? static_cast<size_t>(n) : 0, tracer_code_, cuda_code_,
                  state != nullptr && state->followed_host_functions > 0);
}

void HostGuards::RecordAccess(const FaultSite& site) {
  // A framework's stack (Python's) is asked for before the tracer's lock:
  // the plugin interns it under that lock itself.
  const StackId python = ThisThreadFrameworkOps().empty() ? FrameworkStackOfThisThread() : 0;
  if (!LockWithin(tracer_.tracer_lock(), 1000)) {
    dropped_.fetch_add(1);
    return;
  }
  GuardInternalErrors("a host access", [&] {
    // A locked read-modify-write is synchronization with the device, as a
    // system-scope atomic on its side is (PTX's memory model orders atomics
    // at system scope with each other): left out and counted, as kernel
    // arguments pointing to volatile memory are (docs/internals/host-guards.md).
    if (site.atomic) return tracer_.CountUnmodeled("host atomic read-modify-writes (synchronization, not checked)");
    TraceRecord r;
    r.op = OpCode::kHostAccess;
    r.api = tracer_.InternStatic(site.write ? "host write" : "host read");
    r.accesses.push_back({site.address, site.size, site.write ? AccessMode::kWrite : AccessMode::kRead});
    r.stack = python;
    tracer_.Emit(r);
    host_accesses_.fetch_add(1);
  });
  tracer_.tracer_lock().unlock();
}

bool HostGuards::OnGuardFault(siginfo_t* info, ucontext_t* context) {
  HostGuards* self = g_guards;
  if (self == nullptr || !self->on() || info->si_code != SEGV_ACCERR) return false;
  const FaultSite site = ReadFaultSite(info, context);
  switch (self->table_.OnFault(reinterpret_cast<Address>(info->si_addr), site.write)) {
    case GuardTable::FaultVerdict::kNotOurs:
      return false;
    case GuardTable::FaultVerdict::kStale: {
      // Opened meanwhile by another thread: the access goes ahead. The same
      // address again and again means the page's protection is not what we
      // think (changed by a raw system call): the program's fault, then.
      thread_local Address last_stale __attribute__((tls_model("initial-exec"))) = 0;
      thread_local int repeats __attribute__((tls_model("initial-exec"))) = 0;
      repeats = last_stale == site.address ? repeats + 1 : 0;
      last_stale = site.address;
      return repeats < 3;
    }
    case GuardTable::FaultVerdict::kOpened:
      break;
  }
  switch (self->OriginOfFault(site)) {
    case FaultOrigin::kTracer:
      self->tracer_faults_.fetch_add(1);
      break;
    case FaultOrigin::kCuda:
      self->cuda_faults_.fetch_add(1);
      break;
    case FaultOrigin::kProgram:
      self->RecordAccess(site);
      NoteOpenedByHostFunction(reinterpret_cast<Address>(info->si_addr));
      break;
  }
  return true;
}

}  // namespace streamcheck::tracer::host
