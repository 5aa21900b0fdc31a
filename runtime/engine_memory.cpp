// Memory: allocation lifetimes, the accesses of kernels, copies and memsets,
// and host accesses.
#include <iterator>
#include <span>

#include "runtime/engine_impl.h"
#include "runtime/transfer_semantics.h"

namespace streamcheck {
namespace {

// A table, not a switch: it runs for every access.
ShadowKind ShadowKindOf(AccessMode mode) {
  static constexpr ShadowKind kByMode[] = {ShadowKind::kUnknown, ShadowKind::kRead, ShadowKind::kWrite,
                                           ShadowKind::kReadWrite, ShadowKind::kUnknown};
  const auto index = static_cast<size_t>(mode);
  return index < std::size(kByMode) ? kByMode[index] : ShadowKind::kUnknown;
}

}  // namespace

void Engine::Impl::TransferAccesses(const TraceRecord& r, std::vector<MemoryAccess>* out) {
  out->clear();
  if (r.op == OpCode::kMemcpy || r.node_op == OpCode::kMemcpy)
    out->push_back({r.src, StridedExtent(r.size, r.height, r.src_pitch), AccessMode::kRead});
  out->push_back({r.dst, StridedExtent(r.size, r.height, r.dst_pitch), AccessMode::kWrite});
}

void Engine::Impl::ApplyAccesses(Lane lane, const VectorClock& clock, uint32_t site,
                                 const std::vector<MemoryAccess>& accesses, uint64_t trace_index,
                                 uint64_t timestamp_ns, bool staged_copy) {
  auto is_host = [this](Lane l) { return lanes_.IsHost(l); };
  const Clock now_clock = clock.Get(lane);
  if (pending_host_func_runs_ != 0 || !running_host_funcs_.empty()) [[unlikely]] NoteHostFuncRunsKnown(lane, clock);
  op_log_.Note({lane, now_clock}, trace_index, timestamp_ns);
  // The accesses' shadow slots are independent cache misses: start them all
  // before the first lookup waits, unless the caller prefetched this record
  // already, several records ahead (replay): then they are in cache or on
  // their way, and hashing each address again costs more than it saves.
  if (!caller_prefetches_ && accesses.size() > 1)
    for (const MemoryAccess& a : accesses) shadow_.Prefetch(a.addr);
  // Conflicts are rare: the scratch list is emptied after a report, not
  // before every access.
  conflicts_.clear();
  auto report = [&](Address addr, uint64_t size, const ShadowAccess& now, std::span<const ShadowConflict> found) {
    if (found.empty()) return;
    AccessDescription later{lane, site, now.kind, addr, size, trace_index, timestamp_ns};
    later.guessed = now.guessed;
    ReportConflicts(later, found);
  };
  const bool host_threads_unordered = sync_.per_thread_clocks();
  const MemoryAccess* const all = accesses.data();
  const size_t count = accesses.size();
  stats_.accesses_checked += count;
  for (size_t i = 0; i < count; ++i) {
    const MemoryAccess& a = all[i];
    ShadowAccess now{lane, now_clock, site, ShadowKindOf(a.mode)};
    now.staged_copy = staged_copy;
    const AccessContext context{host_threads_unordered, all, i};
    // A race is certain only where both sides' certain bytes meet
    // (engine_report.cpp): a pointer's first byte is certain, the guess
    // past it is not. Shadow memory keeps them in one interval.
    if (a.certainty == AccessCertainty::kFirstByte && a.size > 1) {
      now.guessed = now.first_byte = true;
      const size_t first = shadow_.AccessFirstByte(a.addr, a.size, now, clock, is_host, &conflicts_, context);
      if (!conflicts_.empty()) [[unlikely]] {
        const std::span<const ShadowConflict> found(conflicts_);
        report(a.addr, 1, HeadPart(now), found.first(first));
        report(a.addr + 1, a.size - 1, TailPart(now), found.subspan(first));
        conflicts_.clear();
      }
      continue;
    }
    now.guessed = a.certainty == AccessCertainty::kNone;
    shadow_.Access(a.addr, a.size, now, clock, is_host, &conflicts_, context);
    if (!conflicts_.empty()) [[unlikely]] {
      report(a.addr, a.size, now, conflicts_);
      conflicts_.clear();
    }
  }
}

void Engine::Impl::StreamOperation(const TraceRecord& r, StreamState& s,
                                   const std::vector<MemoryAccess>& accesses, bool staged_copy) {
  if (s.capture_graph != 0) {  // captured work does not run now
    CaptureNode(r, s, accesses);
    return;
  }
  ThreadState& t = sync_.Thread(r.thread);
  sync_.PrepareStreamOperation(s, t);
  const Epoch e = sync_.TickStream(s);
  last_device_work_ = {e.lane, e.clock};
  ++stats_.stream_operations;
  const uint32_t site = SiteOf(r);
  lanes_.NoteOperation(s.lane, site);
  ApplyAccesses(s.lane, s.clock, site, accesses, index_, r.timestamp_ns, staged_copy);
}

// cudaLaunchKernel(Ex), <<<>>>, cudaLaunchCooperativeKernel, cuLaunchKernel(Ex).
void Engine::Impl::KernelLaunch(const TraceRecord& r) {
  EnterHostCall(r);
  StreamState& s = sync_.Stream(r.stream, r.thread);
  DefaultStreamUse(r, s);
  StreamOperation(r, s, r.accesses);
}

// Host reads/writes observed by the tracer (e.g. faults on protected pinned pages).
// Inside a host function, they are the function's: its stream's work done
// on the host (engine_host_funcs.cpp), not the driver thread's.
void Engine::Impl::HostAccess(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  ++stats_.host_operations;
  if (RunningHostFunc(r.thread) != nullptr) [[unlikely]] {
    applying_host_func_ = RunningHostFuncRun(r.thread);
    ApplyAccesses(applying_host_func_->lane, applying_host_func_->clock, SiteOf(r), r.accesses, index_,
                  r.timestamp_ns);
    applying_host_func_ = nullptr;
    return;
  }
  sync_.TickThread(t);
  ApplyAccesses(t.lane, t.clock, SiteOf(r), r.accesses, index_, r.timestamp_ns);
}

// cudaMemcpy*, cudaMemcpy*Async, 2D/3D, peer, to/from symbol: the tracer
// resolves symbols to addresses; synchronization follows transfer_semantics.
void Engine::Impl::Memcpy(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  StreamState& s = sync_.Stream(r.stream, r.thread);
  const MemoryKind src_kind = allocations_.KindOf(r.src);
  const MemoryKind dst_kind = allocations_.KindOf(r.dst);
  const CopyKind kind = ResolveCopyKind(r.copy_kind, src_kind, dst_kind);
  std::vector<MemoryAccess>& both = transfer_;
  TransferAccesses(r, &both);
  if (r.is_async) DefaultStreamUse(r, s);
  if (s.capture_graph != 0) {
    CaptureNode(r, s, both);
    return;
  }
  // The host side of a copy is host memory (the copy's kind says so, or the
  // driver found no allocation there). Where none of CUDA's holds it, the
  // host mapped it itself, maybe at addresses CUDA freed and gave back to the
  // system (device, pinned and managed memory alike: cuda-samples'
  // UnifiedMemoryPerf mallocs 4 MiB where a cudaFree'd buffer was): those
  // bytes keep no free, or the copy would be a use after it.
  if (src_kind == MemoryKind::kPageableHost && (kind == CopyKind::kHostToDevice || kind == CopyKind::kHostToHost))
    shadow_.ForgetFrees(both[0].addr, both[0].size);
  if (dst_kind == MemoryKind::kPageableHost && (kind == CopyKind::kDeviceToHost || kind == CopyKind::kHostToHost))
    shadow_.ForgetFrees(both[1].addr, both[1].size);
  const TransferPlan plan = PlanCopy(kind, src_kind, dst_kind, r.is_async);
  if (plan.pageable_async && options_.report_pageable_async_copies) {
    AccessDescription copy{s.lane, SiteOf(r), ShadowKind::kWrite, r.dst, r.size, index_, r.timestamp_ns};
    pending_pageable_.push_back({r.thread, r.stream, copy});
  }
  if (plan.host_waits_for_stream_before) HostWaitsForStreamState(t, s);
  std::vector<MemoryAccess>& on_stream = copy_on_stream_;
  std::vector<MemoryAccess>& on_host = copy_on_host_;
  on_stream.clear();
  on_host.clear();
  (plan.source == TransferSide::kHost ? on_host : on_stream).push_back(both[0]);
  (plan.destination == TransferSide::kHost ? on_host : on_stream).push_back(both[1]);
  if (!on_host.empty()) {
    sync_.TickThread(t);
    ApplyAccesses(t.lane, t.clock, SiteOf(r), on_host, index_, r.timestamp_ns);
  }
  if (!on_stream.empty()) {
    StreamOperation(r, s, on_stream, plan.staged_destination);
    if (plan.host_waits_after) sync_.JoinIntoThread(t, s.clock);
  }
}

// A pageable async copy is judged by its thread's next call: synchronizing
// the copy's stream (or the device) right away makes it a synchronous copy in
// effect (PyTorch's blocking Tensor.to / copy_ do exactly that), which is not
// worth a warning; anything else first, and it is reported. Records that are
// not CUDA calls (names, stacks, the host-thread ordering the tracer writes
// before a synchronize or at a lock, a test's scope opening or closing) are
// looked past, and so are the stream's
// own bookkeeping between the copy and that synchronization: a stream-ordered
// free or allocation, or an event record, on the copy's stream (cuda-samples'
// streamOrderedAllocation: copy, cudaFreeAsync, cudaStreamSynchronize).
void Engine::Impl::SettlePageableCopies(const TraceRecord& next) {
  const bool definition = next.op == OpCode::kDefineString || next.op == OpCode::kDefineStack ||
                          next.op == OpCode::kProcessInfo || next.op == OpCode::kThreadName ||
                          next.op == OpCode::kHostThreadOrder || next.op == OpCode::kThreadRelease ||
                          next.op == OpCode::kThreadAcquire || next.op == OpCode::kScopeBegin ||
                          next.op == OpCode::kScopeEnd;
  for (size_t i = 0; i < pending_pageable_.size();) {
    const PendingPageableCopy& p = pending_pageable_[i];
    const bool bookkeeping = (next.op == OpCode::kFreeAsync || next.op == OpCode::kMallocAsync ||
                              next.op == OpCode::kEventRecord) &&
                             next.stream == p.stream;
    if (definition || bookkeeping || p.thread != next.thread) {
      ++i;
      continue;
    }
    const bool synchronized = next.op == OpCode::kDeviceSynchronize ||
                              (next.op == OpCode::kStreamSynchronize && next.stream == p.stream);
    if (!synchronized) ReportPageableCopy(p.copy);
    pending_pageable_.erase(pending_pageable_.begin() + i);
  }
}

void Engine::Impl::ReportPageableCopy(const AccessDescription& copy) {
  ReportSingle(rules::RuleId::kPageableAsyncCopy, FindingKind::kPageableAsyncCopy, copy,
               "asynchronous copy into pageable host memory",
               "the host buffer was not allocated with cudaMallocHost/cudaHostAlloc nor registered "
               "with cudaHostRegister, so the copy is staged and may run synchronously, and the program "
               "went on without synchronizing its stream; the buffer is treated as written by the stream "
               "until the stream is synchronized");
}

// cudaMemset*, cudaMemset*Async.
void Engine::Impl::Memset(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  StreamState& s = sync_.Stream(r.stream, r.thread);
  std::vector<MemoryAccess>& dst = transfer_;
  TransferAccesses(r, &dst);
  if (r.is_async) DefaultStreamUse(r, s);
  if (s.capture_graph != 0) {
    CaptureNode(r, s, dst);
    return;
  }
  const TransferPlan plan = PlanMemset(allocations_.KindOf(r.dst), r.is_async);
  StreamOperation(r, s, dst);
  if (plan.host_waits_after) sync_.JoinIntoThread(t, s.clock);
}

// cudaMalloc, cudaMallocPitch, cudaMallocManaged, cudaMallocHost, cudaHostAlloc:
// fresh memory with no history.
void Engine::Impl::Malloc(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  sync_.TickThread(t);
  Allocation a{r.dst, r.size, r.memory_kind, DeviceOf(r, t), SiteOf(r), kNoLane};
  allocations_.Add(a);
  shadow_.Fresh(r.dst, r.size);
}

// cudaHostRegister: existing host memory becomes pinned; its history stays.
void Engine::Impl::HostRegister(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  allocations_.Add({r.dst, r.size, MemoryKind::kRegisteredHost, DeviceOf(r, t), SiteOf(r), kNoLane});
}

void Engine::Impl::FreeRange(Address base, uint64_t size, Lane lane, const VectorClock& clock,
                             uint32_t site, bool reuse, uint64_t timestamp_ns, const ShadowAccess* reused_by) {
  auto is_host = [this](Lane l) { return lanes_.IsHost(l); };
  ShadowAccess free{lane, clock.Get(lane), site, ShadowKind::kFree};
  op_log_.Note(free.epoch(), index_, timestamp_ns);
  conflicts_.clear();
  shadow_.Free(base, size, free, clock, is_host, &conflicts_, reused_by ? *reused_by : free);
  if (!conflicts_.empty())
    ReportConflicts({lane, site, ShadowKind::kFree, base, size, index_, timestamp_ns, 0, reuse}, conflicts_);
}

// cudaFree, cudaFreeHost: synchronize the device first (documented behavior),
// so only work on other devices can still be using the memory.
void Engine::Impl::Free(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  if (r.dst == 0) return;  // cudaFree(nullptr) is a no-op
  HostWaitsForDevice(t, DeviceOf(r, t));
  const Allocation* a = LiveAllocationAt(allocations_, r.dst);
  if (a == nullptr) return;
  sync_.TickThread(t);
  FreeRange(a->base, a->size, t.lane, t.clock, SiteOf(r), /*reuse=*/false, r.timestamp_ns);
  graph_memory_.Remove(a->base, a->size);
  allocations_.Remove(r.dst, nullptr);  // after the report, which names the allocation
}

// cudaMallocAsync, cudaMallocFromPoolAsync: the memory is usable in stream
// order after the allocation; the pool itself orders reuse of freed blocks.
void Engine::Impl::MallocAsync(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  StreamState& s = sync_.Stream(r.stream, r.thread);
  if (s.capture_graph != 0) {
    Anomaly("cudaMallocAsync during stream capture (memory nodes are not modeled)");
    return;
  }
  DefaultStreamUse(r, s);
  sync_.PrepareStreamOperation(s, t);
  const Epoch e = sync_.TickStream(s);
  allocations_.Add({r.dst, r.size, MemoryKind::kAsyncPool, s.device, SiteOf(r), s.lane});
  op_log_.Note(e, index_, r.timestamp_ns);
  shadow_.Reset(r.dst, r.size, ShadowAccess{e.lane, e.clock, SiteOf(r), ShadowKind::kAllocate});
}

// cudaFreeAsync: a stream operation; every earlier use must be ordered before it.
void Engine::Impl::FreeAsync(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  StreamState& s = sync_.Stream(r.stream, r.thread);
  if (s.capture_graph != 0) {
    Anomaly("cudaFreeAsync during stream capture (memory nodes are not modeled)");
    return;
  }
  DefaultStreamUse(r, s);
  const Allocation* a = LiveAllocationAt(allocations_, r.dst);
  if (a == nullptr) return;
  sync_.PrepareStreamOperation(s, t);
  sync_.TickStream(s);
  FreeRange(a->base, a->size, s.lane, s.clock, SiteOf(r), /*reuse=*/false, r.timestamp_ns);
  allocations_.Remove(r.dst, nullptr);
}

// A caching allocator's block handed to `stream` (PyTorch: a tensor's
// storage). The allocator gives a freed block out again only in the order of
// the stream it was freed on, so that is where its earlier tenants' uses must
// all be ordered before: a use on another stream that is not (a tensor used
// on a side stream without Tensor.record_stream) may still be running when the
// new tenant writes. With record_stream the allocator frees only after its
// events on the other streams completed (a successful cudaEventQuery the
// tracer saw), which orders those uses first. The check is made at reuse, not
// at free: freeing is harmless until the memory has a new tenant, and a
// program whose next allocation on that stream waits for the other stream
// anyway is correct.
// During capture the block goes to the graph's private pool, which nothing
// outside the graph reuses: fresh memory, no stream operation.
void Engine::Impl::PoolBlockAllocate(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  StreamState& s = sync_.Stream(r.stream, r.thread);
  const uint32_t site = SiteOf(r);
  pool_blocks_.Add({r.dst, r.size, allocations_.KindOf(r.dst), s.device, site, s.lane});
  if (s.capture_graph != 0) {
    graph_memory_.Add(r.dst, r.size);
    shadow_.Reset(r.dst, r.size, ShadowAccess{});
    return;
  }
  // A graph's private pool handing a block out again outside a capture
  // (PyTorch's CUDA graph trees restore a pool's checkpointed state before
  // warming up or recording the next graph): the allocator's stream order
  // says nothing about the graph's replays, which it never sees, and their
  // owner orders them itself (the trees synchronize the device before the
  // pool's blocks are used again). So this allocation is no use of the
  // memory: the replays' accesses stay, and each later access is checked
  // against them as any other would be.
  if (graph_memory_.Overlaps(r.dst, r.size)) return;
  sync_.PrepareStreamOperation(s, t);
  const Epoch e = sync_.TickStream(s);
  const ShadowAccess allocation{e.lane, e.clock, site, ShadowKind::kAllocate};
  FreeRange(r.dst, r.size, s.lane, s.clock, site, /*reuse=*/true, r.timestamp_ns, &allocation);
}

// The block goes back to the allocator; PoolBlockAllocate checks its reuse.
void Engine::Impl::PoolBlockFree(const TraceRecord& r) {
  EnterHostCall(r);
  if (LiveAllocationAt(pool_blocks_, r.dst) != nullptr) pool_blocks_.Remove(r.dst, nullptr);
}

const Allocation* Engine::Impl::LiveAllocationAt(const AllocationTable& table, Address base) {
  const Allocation* a = table.Find(base);
  if (a != nullptr && a->base == base) return a;
  Anomaly("free of an address with no live allocation");
  return nullptr;
}

const Allocation* Engine::Impl::AllocationAt(Address addr) const {
  const Allocation* block = pool_blocks_.Find(addr);
  return block ? block : allocations_.Find(addr);
}

// cudaDeviceReset: waits for the device, then destroys its allocations.
void Engine::Impl::DeviceReset(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  const DeviceId device = DeviceOf(r, t);
  HostWaitsForDevice(t, device);
  pool_blocks_.RemoveDevice(device, [](const Allocation&) {});
  allocations_.RemoveDevice(device, [this](const Allocation& a) {
    shadow_.Reset(a.base, a.size, ShadowAccess{});
    graph_memory_.Remove(a.base, a.size);
  });
}

}  // namespace streamcheck
