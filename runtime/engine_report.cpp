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
// files of the innermost frames, no addresses or line numbers.
uint64_t FingerprintSide(uint64_t h, const FindingAccess& a) {
  h = Fnv1a(h, a.op);
  h = Fnv1a(h, a.api);
  h = Fnv1a(h, a.framework_op);
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
  out.on_host = lane.IsHost();
  out.device = lane.device;
  out.thread = site.thread;
  out.mode = ModeOf(a.kind);
  out.address = a.address;
  out.size = a.size;
  out.trace_index = a.trace_index;
  out.timestamp_ns = a.timestamp_ns;
  out.stack = resolver_ ? resolver_->Resolve(site.stack) : symbols_.ResolveStack(site.stack);
  if (!out.on_host) DescribeOrigins(a.lane, &out);
  else out.stream_kind = "host";
  return out;
}

void Engine::Impl::ReportConflicts(const AccessDescription& later) {
  for (const ShadowConflict& c : conflicts_) {
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
      const bool host = lanes_.IsHost(e.lane) || lanes_.IsHost(later.lane);
      rule = host ? rules::RuleId::kHostDeviceRace : rules::RuleId::kCrossStreamRace;
      if (e.kind == ShadowKind::kRead) kind = FindingKind::kWriteAfterRead;
      else if (later.kind == ShadowKind::kWrite) kind = FindingKind::kWriteAfterWrite;
      else kind = FindingKind::kReadAfterWrite;
    }
    const Confidence confidence = (e.kind == ShadowKind::kUnknown || later.kind == ShadowKind::kUnknown)
                                      ? Confidence::kPossible
                                      : Confidence::kCertain;
    const OpLog::Entry where = op_log_.Find(e.epoch());
    AccessDescription earlier{e.lane,    e.site, e.kind, c.begin, c.end - c.begin, where.trace_index,
                              where.timestamp_ns, e.clock};
    findings_.Report({rule, kind, e.site, later.site}, [&] {
      return BuildFinding(rule, kind, confidence, earlier, later);
    });
  }
}

void Engine::Impl::ReportSingle(rules::RuleId rule, FindingKind kind, const AccessDescription& access,
                                const std::string& message, const std::string& reason) {
  findings_.Report({rule, kind, 0, access.site}, [&] {
    Finding f;
    f.rule = std::string(rules::Get(rule).id);
    f.kind = kind;
    f.message = message;
    f.reason = reason;
    f.fix = std::string(rules::Get(rule).fix_hint);
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

Finding Engine::Impl::BuildFinding(rules::RuleId rule, FindingKind kind, Confidence confidence,
                                   const AccessDescription& earlier, const AccessDescription& later) {
  Finding f;
  f.rule = std::string(rules::Get(rule).id);
  f.kind = kind;
  f.confidence = confidence;
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
      if (confidence != Confidence::kCertain)
        f.reason += "; whether a kernel reads or writes through a non-const pointer argument is "
                    "unknown, so this race is possible rather than certain";
      break;
  }
  f.fix = FixFor(rule, earlier, later);
  f.syncs = SyncsBetween(earlier, later);
  uint64_t h = Fnv1a(0xcbf29ce484222325ull, f.rule);
  h = Fnv1a(h, FindingKindName(kind));
  h = FingerprintSide(FingerprintSide(h, a), b);
  f.fingerprint = Hex(h);
  return f;
}

std::string Engine::Impl::ExplainMissingOrder(const AccessDescription& earlier,
                                              const AccessDescription& later, std::string* gap) {
  std::string unused;
  if (gap == nullptr) gap = &unused;
  const LaneInfo& a = lanes_.Get(earlier.lane);
  const LaneInfo& b = lanes_.Get(later.lane);
  const std::string an = lanes_.Describe(earlier.lane), bn = lanes_.Describe(later.lane);
  const std::string aop = OpName(earlier.site);
  if (b.IsHost()) {
    *gap = "host-not-synchronized";
    return "the host did not wait for " + an + " after " + aop +
           ": no cudaStreamSynchronize, cudaEventSynchronize on an event recorded after it, "
           "cudaDeviceSynchronize, successful query or synchronous copy came between them";
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
      return "call cudaStreamSynchronize on " + an + " (or cudaEventSynchronize on an event recorded "
             "after " + aop + ") before the host accesses the memory";
    default:
      return std::string(rules::Get(rule).fix_hint);
  }
}

}  // namespace streamcheck
