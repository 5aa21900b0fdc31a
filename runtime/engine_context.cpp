// What a report shows around a finding besides the two accesses: where each
// stream and event came from (so it can be named for people), and the
// synchronization that did happen between the accesses (so the timeline can
// draw the edges that exist beside the one that is missing).
#include <algorithm>

#include "runtime/engine_impl.h"

namespace streamcheck {
namespace {

std::vector<ResolvedFrame> ResolveSite(StackResolver* resolver, const SymbolTable& symbols, StackId stack) {
  if (stack == 0) return {};
  return resolver ? resolver->Resolve(stack) : symbols.ResolveStack(stack);
}

const char* SyncRole(OpCode op) {
  switch (op) {
    case OpCode::kEventRecord: return "event record";
    case OpCode::kStreamWaitEvent: return "stream wait";
    case OpCode::kEventSynchronize: return "event synchronize";
    case OpCode::kEventQuery: return "event query";
    case OpCode::kStreamSynchronize: return "stream synchronize";
    case OpCode::kStreamQuery: return "stream query";
    case OpCode::kDeviceSynchronize: return "device synchronize";
    default: return "synchronization";
  }
}

// A finding shows at most this many (the latest before the later access).
constexpr size_t kMaxSyncs = 6;

}  // namespace

// After the call was modeled: only calls that ordered something are kept
// (a query that did not return cudaSuccess, a wait on an event never
// recorded and calls inside a stream capture order nothing now).
void Engine::Impl::NoteSynchronization(const TraceRecord& r) {
  // A record whose stack the tracer does not take keeps none here either
  // (a replayed trace may have one): findings show what a live run can.
  const StackId stack = FindingsCiteStackOf(r.op) ? r.stack : 0;
  SyncEntry e{r.op, kNoLane, kNoLane, r.event, Site{r.api, r.name, r.framework_op, stack, r.thread, r.library}, index_,
              r.timestamp_ns};
  switch (r.op) {
    case OpCode::kEventRecord:
    case OpCode::kStreamWaitEvent: {
      const StreamState& s = sync_.Stream(r.stream, r.thread);
      if (s.capture_graph != 0) return;
      if (r.op == OpCode::kStreamWaitEvent) {
        auto it = sync_.events().find(r.event);
        if (it == sync_.events().end() || !it->second.recorded || it->second.capture_graph != 0) return;
      }
      e.lane = s.lane;
      break;
    }
    case OpCode::kStreamSynchronize:
    case OpCode::kStreamQuery:
      if (r.result != 0) return;
      e.lane = sync_.Thread(r.thread).lane;
      e.target = sync_.Stream(r.stream, r.thread).lane;
      break;
    case OpCode::kEventSynchronize:
    case OpCode::kEventQuery: {
      auto it = sync_.events().find(r.event);
      if (r.result != 0 || it == sync_.events().end() || !it->second.recorded) return;
      e.lane = sync_.Thread(r.thread).lane;
      break;
    }
    case OpCode::kDeviceSynchronize:
      e.lane = sync_.Thread(r.thread).lane;
      break;
    default: return;
  }
  sync_history_.Add(e);
}

void Engine::Impl::DescribeOrigins(Lane lane, FindingAccess* out) const {
  out->stream_kind = std::string(lanes_.KindName(lane));
  // A graph's nodes are named by the stream the graph was launched on.
  if (const Lane launched = lanes_.Get(lane).launch_lane; launched != kNoLane) lane = launched;
  const LaneInfo& info = lanes_.Get(lane);
  ObjectOrigin& origin = out->stream_origin;
  origin.ordinal = info.ordinal;
  if (info.created_site != 0) {
    const Site& created = sites_.Get(info.created_site);
    origin.created_by = std::string(symbols_.String(created.api));
    origin.created_at = ResolveSite(resolver_, symbols_, created.stack);
  }
  if (const uint32_t first_site = lanes_.FirstSite(lane); first_site != 0) {
    const Site& first = sites_.Get(first_site);
    origin.first_op = std::string(symbols_.String(first.framework_op));
    if (origin.first_op.empty()) origin.first_op = OpName(first_site);
    origin.first_used_at = ResolveSite(resolver_, symbols_, first.stack);
  }
}

ObjectOrigin Engine::Impl::EventOrigin(Handle event) const {
  ObjectOrigin origin;
  const EventOrigins::Origin found = event_origins_.Find(event);
  origin.ordinal = found.ordinal;
  if (found.site != 0) {
    const Site& created = sites_.Get(found.site);
    origin.created_by = std::string(symbols_.String(created.api));
    origin.created_at = ResolveSite(resolver_, symbols_, created.stack);
  }
  return origin;
}

// The synchronization between the two accesses that touched either side:
// event records and waits on either side's stream, the host waits of the
// later side's thread when it is a host access, and any host wait for the
// earlier side's stream; with the records of the events those waits name.
std::vector<FindingAccess> Engine::Impl::SyncsBetween(const AccessDescription& earlier,
                                                      const AccessDescription& later) const {
  std::vector<SyncEntry> chosen;
  for (const SyncEntry& e : sync_history_.Between(earlier.trace_index, later.trace_index)) {
    const bool on_either = e.lane == earlier.lane || e.lane == later.lane || e.target == earlier.lane;
    if (on_either) chosen.push_back(e);
  }
  // A wait on either side names its event: that event's record belongs in the picture too.
  for (const SyncEntry& e : sync_history_.Between(earlier.trace_index, later.trace_index)) {
    if (e.op != OpCode::kEventRecord) continue;
    bool waited = false, kept = false;
    for (const SyncEntry& c : chosen) {
      waited = waited || (c.op == OpCode::kStreamWaitEvent && c.event == e.event);
      kept = kept || (c.trace_index == e.trace_index);
    }
    if (waited && !kept) chosen.push_back(e);
  }
  std::sort(chosen.begin(), chosen.end(),
            [](const SyncEntry& a, const SyncEntry& b) { return a.trace_index < b.trace_index; });
  if (chosen.size() > kMaxSyncs) chosen.erase(chosen.begin(), chosen.end() - kMaxSyncs);

  std::vector<FindingAccess> out;
  for (const SyncEntry& e : chosen) {
    FindingAccess a;
    const Site& site = e.site;
    const LaneInfo& lane = lanes_.Get(e.lane);
    a.role = SyncRole(e.op);
    a.api = std::string(symbols_.String(site.api));
    a.op = site.name != 0 ? std::string(symbols_.String(site.name)) : a.api;
    a.framework_op = std::string(symbols_.String(site.framework_op));
    // A host wait happens on the host thread; the stream it waited for (if
    // one) fills the stream fields.
    a.on_host = lane.IsHost();
    if (!a.on_host || e.target != kNoLane) {
      const Lane stream = a.on_host ? e.target : e.lane;
      const LaneInfo& info = lanes_.Get(stream);
      a.stream = lanes_.Describe(stream);
      a.stream_handle = info.kind == LaneKind::kGraphNodes ? info.launch_stream : info.handle;
      a.stream_flags = info.flags;
      DescribeOrigins(stream, &a);
    }
    a.device = lane.device;
    a.thread = site.thread;
    a.mode = AccessMode::kUnknown;
    a.trace_index = e.trace_index;
    a.timestamp_ns = e.timestamp_ns;
    if (e.event != 0) {
      a.event = e.event;
      a.event_origin = EventOrigin(e.event);
    }
    a.stack = ResolveSite(resolver_, symbols_, site.stack);
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace streamcheck
