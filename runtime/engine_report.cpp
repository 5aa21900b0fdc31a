// Turns shadow conflicts into findings: which rule and kind, how sure we are,
// why no happens-before edge exists, and how to add one.
#include "runtime/hex.h"

#include "runtime/engine_impl.h"

namespace streamcheck {
namespace {

AccessMode ModeOf(ShadowKind k) {
  switch (k) {
    case ShadowKind::kRead: return AccessMode::kRead;
    case ShadowKind::kWrite:
    case ShadowKind::kAllocate:
    case ShadowKind::kFree: return AccessMode::kWrite;
    case ShadowKind::kReadWrite: return AccessMode::kReadWrite;
    case ShadowKind::kUnknown: return AccessMode::kUnknown;
  }
  return AccessMode::kUnknown;
}

uint64_t Fnv1a(uint64_t h, std::string_view s) {
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return (h ^ 0xff) * 0x100000001b3ull;  // separator so "ab","c" != "a","bc"
}

// The part of a site that survives re-runs and rebuilds: names and source
// files of the innermost frames, no addresses or line numbers; and the
// scope (test) it was issued in.
uint64_t FingerprintSide(uint64_t h, const FindingAccess& a) {
  h = Fnv1a(h, a.op);
  h = Fnv1a(h, a.api);
  h = Fnv1a(h, a.framework_op);
  // Outside every scope a side adds nothing: fingerprints from before scopes still match.
  if (!a.scope.empty()) h = Fnv1a(h, a.scope);
  size_t n = 0;
  for (const ResolvedFrame& f : a.stack) {
    if (n++ == 4) break;
    h = Fnv1a(h, f.function);
    const size_t slash = f.file.rfind('/');
    h = Fnv1a(h, slash == std::string::npos ? f.file : f.file.substr(slash + 1));
  }
  return h;
}

}  // namespace

std::string Engine::Impl::OpName(uint32_t site) const {
  const Site& s = sites_.Get(site);
  std::string_view name = symbols_.String(s.name);
  if (!name.empty()) return std::string(name);
  std::string_view api = symbols_.String(s.api);
  return api.empty() ? std::string("an operation") : std::string(api);
}

FindingAccess Engine::Impl::Describe(const AccessDescription& a, const char* role) {
  FindingAccess out;
  const Site& site = sites_.Get(a.site);
  const LaneInfo& lane = lanes_.Get(a.lane);
  out.role = role;
  out.op = OpName(a.site);
  out.api = std::string(symbols_.String(site.api));
  out.framework_op = std::string(symbols_.String(site.framework_op));
  out.stream = lanes_.Describe(a.lane);
  out.stream_handle = lane.kind == LaneKind::kGraphNodes ? lane.launch_stream : lane.handle;
  out.stream_flags = lane.flags;
  out.on_host = lane.IsHost() || lane.IsMpi();
  out.device = lane.device;
  out.thread = site.thread;
  out.mode = ModeOf(a.kind);
  out.address = a.address;
  out.size = a.size;
  out.trace_index = a.trace_index;
  out.timestamp_ns = a.timestamp_ns;
  out.stack = resolver_ ? resolver_->Resolve(site.stack) : symbols_.ResolveStack(site.stack);
  out.scope = scopes_.Text(site.scope, symbols_);
  if (!out.on_host) DescribeOrigins(a.lane, &out);
  else out.stream_kind = lanes_.KindName(a.lane);
  return out;
}

// Why a conflict is at most a warning, if it is: the bytes meet only where
// a kernel's extent was guessed; both sides are kernels taking the bytes
// through non-const pointers, neither known to write them (against a pointer
// to const, a non-const one is taken to write: the textbook producer and
// consumer); or the earlier access is a staged copy whose unfinished DMA
// CUDA's documentation allows but practice does not show.
Engine::Impl::Doubt Engine::Impl::DoubtOf(const ShadowAccess& earlier, const AccessDescription& later) {
  if (earlier.guessed || later.guessed) return Doubt::kGuessedExtent;
  if (earlier.kind == ShadowKind::kUnknown && later.kind == ShadowKind::kUnknown) return Doubt::kGuessedMode;
  if (earlier.staged_copy) return Doubt::kStagedCopy;
  return Doubt::kNone;
}

void Engine::Impl::ReportConflicts(const AccessDescription& later) {
  // Certain conflicts first: a pair of operations that races for certain
  // somewhere is one error, and its doubtful overlaps count towards it.
  for (const bool doubtful : {false, true}) {
    for (const ShadowConflict& c : conflicts_) {
      const Doubt doubt = DoubtOf(c.earlier, later);
      if ((doubt != Doubt::kNone) == doubtful) ReportConflict(c, later, doubt);
    }
  }
}

void Engine::Impl::ReportConflict(const ShadowConflict& c, const AccessDescription& later, Doubt doubt) {
  const ShadowAccess& e = c.earlier;
  rules::RuleId rule;
  FindingKind kind;
  if (e.kind == ShadowKind::kFree) {
    rule = rules::RuleId::kUseAfterFree;
    kind = FindingKind::kUseAfterFree;
  } else if (later.kind == ShadowKind::kFree) {
    rule = rules::RuleId::kFreeWhileInUse;
    kind = FindingKind::kFreeWhileInUse;
  } else if (e.kind == ShadowKind::kAllocate) {
    rule = rules::RuleId::kUseBeforeAllocation;
    kind = FindingKind::kUseBeforeAlloc;
  } else {
    // MPI works on a buffer from the host side (engine_mpi.cpp).
    const bool host = lanes_.IsHost(e.lane) || lanes_.IsHost(later.lane) || lanes_.IsMpi(e.lane) ||
                      lanes_.IsMpi(later.lane);
    rule = host ? rules::RuleId::kHostDeviceRace : rules::RuleId::kCrossStreamRace;
    if (e.kind == ShadowKind::kRead) kind = FindingKind::kWriteAfterRead;
    else if (later.kind == ShadowKind::kWrite) kind = FindingKind::kWriteAfterWrite;
    else kind = FindingKind::kReadAfterWrite;
  }
  FindingKey key{rule, kind, e.site, later.site};
  if (LibraryInternal(key, c.begin)) return;
  // Where the same two sites already race for certain, a doubtful
  // occurrence only counts towards that error, and not at all when it is the
  // guessed rest of the very access that raced for certain.
  if (doubt != Doubt::kNone) {
    if (key == last_certain_.key && later.trace_index == last_certain_.trace_index) return;
    if (!findings_.Contains(key)) key.at_most_warning = true;
  } else {
    last_certain_ = {key, later.trace_index};
  }
  const OpLog::Entry where = op_log_.Find(e.epoch());
  AccessDescription earlier{e.lane,    e.site, e.kind, c.begin, c.end - c.begin, where.trace_index,
                            where.timestamp_ns, e.clock};
  earlier.guessed = e.guessed;
  findings_.Report(key, [&] {
    Uncertainty why;
    why.unknown_mode = e.kind == ShadowKind::kUnknown || later.kind == ShadowKind::kUnknown;
    why.doubt = doubt;
    why.at_most_warning = key.at_most_warning;
    why.aware_thread = ThreadAwareOf(e.epoch(), sites_.Get(later.site).thread);
    return BuildFinding(rule, kind, why, earlier, later);
  });
}

// A doubtful finding says why it is only possible and how to settle it.
void Engine::Impl::ExplainDoubt(Doubt doubt, Finding* f) {
  f->at_most_warning = true;
  if (doubt == Doubt::kGuessedExtent) {
    f->message = "possible " + f->message;
    f->reason += "; the two accesses meet only in bytes streamcheck guessed a kernel reaches: it sees a "
                 "kernel's pointer arguments, not its indexing, and takes each pointer to reach up to the "
                 "next boundary it knows in the allocation. Run `streamcheck run --precise -- ...` to "
                 "instrument the kernels and check the bytes they really touch";
  } else if (doubt == Doubt::kGuessedMode) {
    f->message = "possible " + f->message;
    f->reason += "; both kernels take these bytes through pointers that are not const and neither is known to "
                 "write them (a pointer to const in the one that only reads would say which). Run `streamcheck "
                 "run --precise -- ...` to see what each kernel does to them";
  } else if (doubt == Doubt::kStagedCopy) {
    f->message = "possible " + f->message;
    f->reason += "; the earlier access is a cudaMemcpy from pageable host memory, which CUDA's \"API "
                 "synchronization behavior\" says returns once the data is staged, \"but the DMA to final "
                 "destination may not have completed\": a hazard by the letter of the documentation, "
                 "which streamcheck follows as a warning; make the stream wait for the copy (or copy from "
                 "pinned memory, which the call waits for) to settle it";
  }
}

// NCCL's streams wait on events they never recorded, on purpose; its
// kernels' buffers live in descriptors of its own; it copies to and from
// staging memory of its own; cuBLAS and cuDNN keep workspaces of their own.
// None of that is the program's to fix, and what a call does to the
// program's memory is the call's own record (an NCCL collective: its
// buffers' bytes on the program's stream; a cuBLAS kernel: its arguments).
bool Engine::Impl::LibraryInternal(const FindingKey& key, Address address) {
  StringId library = sites_.Get(key.later_site).library;
  if (library == 0) library = sites_.Get(key.earlier_site).library;
  if (library == 0 && address != 0)
    if (const Allocation* a = AllocationAt(address)) library = sites_.Get(a->site).library;
  if (library == 0) return false;
  CountLibraryInternal(key, symbols_.String(library));
  return true;
}

void Engine::Impl::CountLibraryInternal(const FindingKey& key, std::string_view library) {
  if (library_findings_.Report(key, {}))
    ++stats_.library_internal[(library.empty() ? "(unnamed library)" : std::string(library)) + ": " +
                              std::string(rules::Get(key.rule).id)];
}

// The library whose code made the call at `site`: the tracer names it in
// the definition of the call's native stack, from the stack's first frame
// outside CUDA and the tracer (kDefineStack's library). 0 for the program's.
StringId Engine::Impl::CallingLibrary(uint32_t site) const {
  const StackId stack = sites_.Get(site).stack;
  return stack != 0 ? symbols_.LibraryOfStack(stack) : 0;
}

void Engine::Impl::ReportSingle(rules::RuleId rule, FindingKind kind, const AccessDescription& access,
                                const std::string& message, const std::string& reason) {
  const FindingKey key{rule, kind, 0, access.site};
  if (LibraryInternal(key, access.address)) return;
  // A single operation's finding says how the call was made; made from a
  // library's own code (cuSPARSE copying a result into its caller's
  // pageable int, then synchronizing a few calls later), that is the
  // library's to change, not the program's.
  if (const StringId library = CallingLibrary(access.site); library != 0)
    return CountLibraryInternal(key, symbols_.String(library));
  ReportSingleOperation(key, access, message, reason);
}

void Engine::Impl::ReportSingleOperation(const FindingKey& key, const AccessDescription& access,
                                         const std::string& message, const std::string& reason) {
  findings_.Report(key, [&] {
    Finding f;
    f.rule = std::string(rules::Get(key.rule).id);
    f.kind = key.kind;
    f.message = message;
    f.reason = reason;
    f.fix = std::string(rules::Get(key.rule).fix_hint);
    f.accesses.push_back(Describe(access, "operation"));
    f.buffer.address = access.address;
    f.buffer.size = access.size;
    if (const Allocation* a = AllocationAt(access.address)) {
      f.buffer.known_allocation = true;
      f.buffer.memory_kind = a->kind;
    }
    f.fingerprint = Hex(FingerprintSide(Fnv1a(0xcbf29ce484222325ull, f.rule), f.accesses[0]));
    return f;
  });
}

Finding Engine::Impl::BuildFinding(rules::RuleId rule, FindingKind kind, const Uncertainty& why,
                                   const AccessDescription& earlier, const AccessDescription& later) {
  Finding f;
  f.rule = std::string(rules::Get(rule).id);
  f.kind = kind;
  f.confidence = why.unknown_mode || why.doubt != Doubt::kNone || why.aware_thread != 0 ? Confidence::kPossible
                                                                                          : Confidence::kCertain;
  f.accesses.push_back(Describe(earlier, "earlier"));
  f.accesses.push_back(Describe(later, "later"));
  const FindingAccess& a = f.accesses[0];
  const FindingAccess& b = f.accesses[1];

  const Allocation* alloc = AllocationAt(later.address);
  if (alloc == nullptr) alloc = AllocationAt(earlier.address);
  if (alloc) {
    f.buffer.address = alloc->base;
    f.buffer.size = alloc->size;
    f.buffer.memory_kind = alloc->kind;
    f.buffer.known_allocation = true;
    const Site& s = sites_.Get(alloc->site);
    // A framework's allocation names the op that made it (aten::empty), not the allocator.
    f.buffer.allocated_by = std::string(symbols_.String(s.framework_op != 0 ? s.framework_op : s.api));
    f.buffer.allocation_stack = resolver_ ? resolver_->Resolve(s.stack) : symbols_.ResolveStack(s.stack);
  } else {
    f.buffer.address = earlier.address;
    f.buffer.size = earlier.size;
  }

  const std::string range = Hex(earlier.address) + ".." + Hex(earlier.address + earlier.size);
  switch (kind) {
    case FindingKind::kUseAfterFree:
      f.message = b.op + " on " + b.stream + " uses memory " + range + " freed by " + a.op;
      f.reason = "the memory was freed before this use and not allocated again";
      f.order_gap = "freed";
      break;
    case FindingKind::kFreeWhileInUse:
      if (later.reuse) {
        f.message = b.op + " on " + b.stream + " reuses memory that " + a.op + " on " + a.stream +
                    " may still be using (" + range + ")";
        f.reason = "the caching allocator freed the block on " + b.stream + " and handed it out again there; " +
                   ExplainMissingOrder(earlier, later);
        f.order_gap = "allocator-reuse";
      } else {
        f.message = b.op + " frees memory that " + a.op + " on " + a.stream + " may still be using (" + range + ")";
        f.reason = ExplainMissingOrder(earlier, later, &f.order_gap);
      }
      break;
    case FindingKind::kUseBeforeAlloc:
      f.message = b.op + " on " + b.stream + " uses memory " + range + " before its stream-ordered allocation (" +
                  a.op + " on " + a.stream + ") is ordered before it";
      f.reason = ExplainMissingOrder(earlier, later, &f.order_gap);
      break;
    default:
      f.message = std::string(FindingKindName(kind)) + " race on " + range + ": " + b.op + " (" +
                  std::string(AccessModeName(b.mode)) + ") on " + b.stream + " vs " + a.op + " (" +
                  std::string(AccessModeName(a.mode)) + ") on " + a.stream;
      f.reason = ExplainMissingOrder(earlier, later, &f.order_gap);
      if (why.unknown_mode)
        f.reason += "; whether a kernel reads or writes through a non-const pointer argument is "
                    "unknown, so this race is possible rather than certain";
      break;
  }
  if (why.aware_thread != 0) f.reason += UnobservedHandover(why.aware_thread, b.thread);
  f.fix = FixFor(rule, earlier, later);
  // (Where the earlier access is the host's own, the fix is that handover already.)
  if (why.aware_thread != 0 && !a.on_host)
    f.fix += "; or, since host thread " + std::to_string(why.aware_thread) +
             " knew it was done, hand the memory over to thread " + std::to_string(b.thread) +
             " after that point through a mutex, condition variable, semaphore, queue or thread join "
             "(which streamcheck sees) rather than a lock-free flag";
  if (why.at_most_warning) ExplainDoubt(why.doubt, &f);
  f.syncs = SyncsBetween(earlier, later);
  // The same doubts as codes, for reports that compose their own words (report/finding_words.h).
  if (why.unknown_mode) f.uncertainty.push_back("unknown-mode");
  switch (why.doubt) {
    case Doubt::kGuessedExtent: f.uncertainty.push_back("guessed-extent"); break;
    case Doubt::kGuessedMode: f.uncertainty.push_back("guessed-mode"); break;
    case Doubt::kStagedCopy: f.uncertainty.push_back("staged-copy"); break;
    case Doubt::kNone: break;
  }
  if (why.aware_thread != 0) {
    f.uncertainty.push_back("unobserved-handover");
    f.aware_thread = why.aware_thread;
  }
  uint64_t h = Fnv1a(0xcbf29ce484222325ull, f.rule);
  h = Fnv1a(h, FindingKindName(kind));
  h = FingerprintSide(FingerprintSide(h, a), b);
  // The warning and the error the same two sites may make are two findings
  // (FindingKey::at_most_warning): a report folding ranks' findings by
  // fingerprint, or a baseline, keeps them apart.
  if (f.at_most_warning) h = Fnv1a(h, "at-most-warning");
  f.fingerprint = Hex(h);
  return f;
}

// What a finding says when only the order of host threads separates its two
// accesses: the handover streamcheck did not see may exist.
std::string Engine::Impl::UnobservedHandover(ThreadId aware, ThreadId later_thread) const {
  return "; host thread " + std::to_string(aware) + " knew the earlier access was done (it synchronized "
         "with it or made it), but streamcheck saw nothing that passes this on to host thread " +
         std::to_string(later_thread) + " before the later access. It sees thread creation and join, "
         "pthread mutexes, read-write locks, condition variables, barriers, pthread_once and semaphores "
         "(std::thread, std::mutex, Python threads and locks); it does not see lock-free atomics, spin "
         "flags or futex-based locks (std::atomic, std::latch, std::future). If such a handover orders "
         "the two threads, this is not a race: possible rather than certain";
}

std::string Engine::Impl::ExplainMissingOrder(const AccessDescription& earlier,
                                              const AccessDescription& later, std::string* gap) {
  std::string unused;
  if (gap == nullptr) gap = &unused;
  const LaneInfo& a = lanes_.Get(earlier.lane);
  const LaneInfo& b = lanes_.Get(later.lane);
  const std::string an = lanes_.Describe(earlier.lane), bn = lanes_.Describe(later.lane);
  const std::string aop = OpName(earlier.site);
  if (a.IsMpi() || b.IsMpi()) return ExplainMpiOrder(earlier, later, gap);
  if (b.IsHost()) {
    *gap = "host-not-synchronized";
    return "the host did not wait for " + an + " after " + aop +
           ": no cudaStreamSynchronize, cudaEventSynchronize on an event recorded after it, "
           "cudaDeviceSynchronize, successful query or synchronous copy came between them";
  }
  // The host's own access (a guard page's fault) on another host thread than
  // the one that enqueued the later operation: only the threads' order is missing.
  if (a.IsHost()) {
    *gap = "host-thread-not-ordered";
    return an + " made the earlier access (" + aop + "), and streamcheck saw nothing that orders host thread " +
           std::to_string(sites_.Get(later.site).thread) + " after it before it enqueued " + OpName(later.site) +
           " on " + bn;
  }
  if (a.kind == LaneKind::kGraphNodes && b.kind == LaneKind::kGraphNodes && a.handle == b.handle) {
    *gap = "graph-no-dependency";
    return "both are nodes of graph exec " + Hex(a.handle) + " with no dependency path between them";
  }
  if (a.device != b.device) {
    *gap = "different-devices";
    return "the operations run on different devices (" + std::to_string(a.device) + " and " +
           std::to_string(b.device) + ") and no event orders them";
  }
  const bool a_legacy = a.kind == LaneKind::kLegacyStream, b_legacy = b.kind == LaneKind::kLegacyStream;
  if ((a_legacy && b.IsNonBlocking()) || (b_legacy && a.IsNonBlocking())) {
    const std::string& nb = a_legacy ? bn : an;
    *gap = "non-blocking-stream";
    return nb + " was created with cudaStreamNonBlocking, so the legacy default stream does not "
                "wait for it and it does not wait for the legacy default stream";
  }
  if (a.kind == LaneKind::kPerThreadStream && b.kind == LaneKind::kPerThreadStream) {
    *gap = "per-thread-streams";
    return "per-thread default streams of different host threads are not ordered with each other";
  }
  *gap = "no-event-wait";
  std::string reason = "nothing orders " + aop + " on " + an + " before " + OpName(later.site) + " on " + bn +
                       ": no event recorded after it on " + an + " was waited on by " + bn +
                       " (cudaStreamWaitEvent), and the host did not synchronize with it before "
                       "enqueuing the later operation";
  // Name an event that already captures the earlier access: the wait on it is what is missing.
  for (const auto& [handle, event] : sync_.events()) {
    if (event.recorded && event.clock.Covers({earlier.lane, earlier.clock})) {
      reason += "; event " + Hex(handle) + " was recorded after it on " + an + " but " + bn +
                " did not wait on it before the later operation";
      *gap = "event-not-waited";
      break;
    }
  }
  return reason;
}

std::string Engine::Impl::FixFor(rules::RuleId rule, const AccessDescription& earlier,
                                 const AccessDescription& later) {
  const std::string an = lanes_.Describe(earlier.lane), bn = lanes_.Describe(later.lane);
  const std::string aop = OpName(earlier.site), bop = OpName(later.site);
  const bool pytorch = !symbols_.String(sites_.Get(later.site).framework_op).empty();
  switch (rule) {
    case rules::RuleId::kCrossStreamRace:
    case rules::RuleId::kUseBeforeAllocation:
      return "record an event on " + an + " after " + aop + " (cudaEventRecord) and make " + bn +
             " wait on it (cudaStreamWaitEvent) before " + bop +
             (pytorch ? "; in PyTorch: later_stream.wait_stream(earlier_stream) before the later op" : "");
    case rules::RuleId::kHostDeviceRace:
      if (lanes_.IsMpi(earlier.lane) || lanes_.IsMpi(later.lane)) return FixMpiOrder(earlier, later);
      if (lanes_.IsHost(earlier.lane))
        return "hand the memory over from " + an + " to host thread " + std::to_string(sites_.Get(later.site).thread) +
               " after " + aop + " and before it enqueues " + bop + ", through a mutex, condition variable, "
               "semaphore, queue or thread join (which streamcheck sees)";
      return "call cudaStreamSynchronize on " + an + " (or cudaEventSynchronize on an event recorded "
             "after " + aop + ") before the host accesses the memory";
    default:
      return std::string(rules::Get(rule).fix_hint);
  }
}

}  // namespace streamcheck
