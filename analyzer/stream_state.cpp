#include "analyzer/stream_state.h"

#include <algorithm>
#include <iterator>
#include <tuple>

namespace streamcheck::lint {
namespace {

OpSet Union(const OpSet& a, const OpSet& b) {
  OpSet out = a;
  out.insert(b.begin(), b.end());
  return out;
}

// Must-meet of two "ordered after" sets: an op is kept when both sides order
// it, or when it is not pending on the side that lacks it.
OpSet MeetOrdered(const OpSet& a, const FlowState& sa, const OpSet& b, const FlowState& sb) {
  if (a == b) return a;
  // One merge over the four sorted sets: x of a or b, and whether it is
  // pending on either side.
  OpSet out;
  auto ia = a.begin(), ib = b.begin();
  auto pa = sa.pending.begin(), pb = sb.pending.begin();
  while (ia != a.end() || ib != b.end()) {
    const int x = ib == b.end() || (ia != a.end() && *ia < *ib) ? *ia : *ib;
    const bool in_a = ia != a.end() && *ia == x;
    const bool in_b = ib != b.end() && *ib == x;
    while (pa != sa.pending.end() && *pa < x) ++pa;
    while (pb != sb.pending.end() && *pb < x) ++pb;
    const bool pending_a = pa != sa.pending.end() && *pa == x;
    const bool pending_b = pb != sb.pending.end() && *pb == x;
    if ((in_a && (in_b || !pending_b)) || (in_b && !pending_a)) out.insert(x);
    if (in_a) ++ia;
    if (in_b) ++ib;
  }
  return out;
}

// Keeps in `a` the keys both maps have, each with the value `merge(x, y)`
// points to (x, y, or null: dropped). In place: a join keeps most of a
// state's entries, and copying them anew was most of a join's cost.
template <typename Map, typename Merge>
void MergeInto(Map& a, const Map& b, Merge merge) {
  for (auto it = a.begin(); it != a.end();) {
    const auto theirs = b.find(it->first);
    const auto* kept = theirs == b.end() ? nullptr : merge(it->second, theirs->second);
    if (kept == nullptr) {
      it = a.erase(it);
      continue;
    }
    if (kept != &it->second) it->second = *kept;
    ++it;
  }
}

// `x` where both sides hold the same, else nothing.
template <typename V>
const V* Same(const V& x, const V& y) {
  return x == y ? &x : nullptr;
}

}  // namespace

int OpTable::Intern(const void* stmt, const std::string& context) {
  auto [it, inserted] = ids_.try_emplace({stmt, context}, static_cast<int>(ops_.size()));
  if (inserted) {
    ops_.emplace_back();
    ops_.back().id = it->second;
  }
  return it->second;
}

int OpTable::StreamId(const std::string& key) {
  return stream_ids_.try_emplace(key, static_cast<int>(stream_ids_.size())).first->second;
}

int OpTable::FindStreamId(const std::string& key) const {
  auto it = stream_ids_.find(key);
  return it == stream_ids_.end() ? -1 : it->second;
}

bool IsBlocking(StreamKind k) { return k != StreamKind::kNonBlocking; }

StreamKind KindOf(const FlowState& s, const std::string& stream) {
  if (stream == kLegacyStream) return StreamKind::kLegacy;
  if (stream == kPerThreadStream) return StreamKind::kPerThread;
  if (auto it = s.streams.find(stream); it != s.streams.end()) return it->second.kind;
  // An element of an array of streams created in a loop: the array's flags.
  if (const size_t bracket = stream.find('['); bracket != std::string::npos) {
    if (auto it = s.streams.find(stream.substr(0, bracket) + "[]"); it != s.streams.end()) return it->second.kind;
  }
  return StreamKind::kUnknown;
}

const OpSet& AfterSet(const FlowState& s, const std::string& stream) {
  if (auto it = s.after.find(stream); it != s.after.end()) return it->second;
  static const OpSet kEmpty;
  return IsBlocking(KindOf(s, stream)) ? s.after_any_blocking : kEmpty;
}

namespace {

// The kind of each pending op's stream, looked up once per stream (ops of
// one stream are many) rather than once per op.
class StreamKinds {
 public:
  explicit StreamKinds(const FlowState& s) : s_(s) {}
  StreamKind Of(const DeviceOp& op) {
    if (op.stream_id < 0) return KindOf(s_, op.stream.key);
    if (static_cast<size_t>(op.stream_id) >= kinds_.size()) kinds_.resize(op.stream_id + 1, -1);
    signed char& k = kinds_[op.stream_id];
    if (k < 0) k = static_cast<signed char>(KindOf(s_, op.stream.key));
    return static_cast<StreamKind>(k);
  }

 private:
  const FlowState& s_;
  std::vector<signed char> kinds_;
};

// Whether work issued now on `stream` runs after each of many earlier ops.
class OrderCheck {
 public:
  OrderCheck(const FlowState& s, const std::string& stream, const OpTable& ops)
      : after_(AfterSet(s, stream)), stream_(stream), stream_id_(ops.FindStreamId(stream)),
        legacy_(stream == kLegacyStream) {}
  bool Before(const DeviceOp& earlier, StreamKinds& kinds) const {
    const bool same = earlier.stream_id >= 0 && stream_id_ >= 0 ? earlier.stream_id == stream_id_
                                                                 : earlier.stream.key == stream_;
    if (same) return true;
    // The legacy default stream waits for all earlier work of the device's
    // blocking streams (the per-thread default stream is one) before it starts.
    if (legacy_ && !earlier.captured && IsBlocking(kinds.Of(earlier))) return true;
    return after_.count(earlier.id) != 0;
  }

 private:
  const OpSet& after_;
  const std::string& stream_;
  int stream_id_;
  bool legacy_;
};

}  // namespace

bool OrderedBefore(const FlowState& s, const DeviceOp& earlier, const std::string& stream, const OpTable& ops) {
  StreamKinds kinds(s);
  return OrderCheck(s, stream, ops).Before(earlier, kinds);
}

namespace {
bool Owned(const FlowState& s, const std::string& key) {
  if (key == kLegacyStream || key == kPerThreadStream) return true;
  if (auto it = s.streams.find(key); it != s.streams.end()) return it->second.owned;
  return false;
}
// "v0x1[#0]" -> base "v0x1", index "#0"
bool SplitElement(const std::string& key, std::string* base, std::string* index) {
  const size_t open = key.find('[');
  if (open == std::string::npos || key.back() != ']') return false;
  *base = key.substr(0, open);
  *index = key.substr(open + 1, key.size() - open - 2);
  return true;
}
}  // namespace

bool DistinctStreams(const FlowState& s, const std::string& a, const std::string& b) {
  if (a == b) return false;
  // A library handle bound to a stream elsewhere: it may be any stream.
  if (a[0] == kAnyStream[0] || b[0] == kAnyStream[0]) return false;
  std::string base_a, base_b, idx_a, idx_b;
  const bool elem_a = SplitElement(a, &base_a, &idx_a);
  const bool elem_b = SplitElement(b, &base_b, &idx_b);
  if (elem_a && elem_b && base_a == base_b) {
    // streams[0] vs streams[1]: distinct; streams[i] vs streams[j]: unknown.
    return idx_a[0] == '#' && idx_b[0] == '#' && s.streams.count(base_a + "[]") != 0;
  }
  const auto owned = [&](const std::string& key, bool elem, const std::string& base) {
    return Owned(s, key) || (elem && s.streams.count(base + "[]") != 0 && s.streams.at(base + "[]").owned);
  };
  // A stream created here differs from every other handle; two handles
  // passed in from elsewhere may be the same stream.
  return owned(a, elem_a, base_a) || owned(b, elem_b, base_b);
}

std::string GuardKey(const std::string& condition, bool value) { return condition + (value ? "=1" : "=0"); }

namespace {

// The guards of a join: each side's that the other side's path agrees with
// (the op is not pending there, the event complete there, or guarded alike),
// and, for a condition the two sides found different values of, the ops
// pending and the events not waited for on one side only.
void JoinGuards(const FlowState& a, const FlowState& b, FlowState* out) {
  for (const auto* side : {&a, &b}) {
    const FlowState& other = side == &a ? b : a;
    for (const auto& [key, guard] : side->guarded) {
      auto theirs = other.guarded.find(key);
      const bool alike = theirs != other.guarded.end();
      OpSet kept;
      for (int id : guard.ops) {
        if (other.pending.count(id) == 0 || (alike && theirs->second.ops.count(id) != 0)) kept.insert(id);
      }
      std::set<std::string> kept_events;
      for (const std::string& e : guard.events) {
        if (other.events_host_complete.count(e) != 0 || (alike && theirs->second.events.count(e) != 0)) {
          kept_events.insert(e);
        }
      }
      OpSet kept_timed;
      for (int id : guard.timed) {
        if (!other.since_clock || other.since_clock->count(id) == 0 || (alike && theirs->second.timed.count(id) != 0)) {
          kept_timed.insert(id);
        }
      }
      if (kept.empty() && kept_events.empty() && kept_timed.empty()) continue;
      FlowState::Guard& g = out->guarded[key];
      g.ops.insert(kept);
      g.events.insert(kept_events.begin(), kept_events.end());
      g.timed.insert(kept_timed);
      g.vars = guard.vars;
    }
  }
  for (const auto& [key, fact] : a.facts) {
    auto it = b.facts.find(key);
    if (it == b.facts.end() || it->second.value == fact.value) continue;
    OpSet only_a = a.pending, only_b = b.pending;
    only_a.erase(b.pending);
    only_b.erase(a.pending);
    // Events waited for on one side are outstanding only on the other's value.
    std::set<std::string> waiting_a, waiting_b;
    std::set_difference(b.events_host_complete.begin(), b.events_host_complete.end(),
                        a.events_host_complete.begin(), a.events_host_complete.end(),
                        std::inserter(waiting_a, waiting_a.end()));
    std::set_difference(a.events_host_complete.begin(), a.events_host_complete.end(),
                        b.events_host_complete.begin(), b.events_host_complete.end(),
                        std::inserter(waiting_b, waiting_b.end()));
    // Work the host clock has not been read since on one side only (the
    // other read it): timed only on that side's value.
    OpSet timed_a = a.since_clock.value_or(OpSet{}), timed_b = b.since_clock.value_or(OpSet{});
    if (a.since_clock && b.since_clock) {
      timed_a.erase(*b.since_clock);
      timed_b.erase(*a.since_clock);
    } else {
      timed_a = timed_b = OpSet{};
    }
    for (const auto& [value, ops, events, timed] : {std::tuple{fact.value, only_a, waiting_a, timed_a},
                                                    std::tuple{it->second.value, only_b, waiting_b, timed_b}}) {
      if (ops.empty() && events.empty() && timed.empty()) continue;
      FlowState::Guard& g = out->guarded[GuardKey(key, value)];
      g.ops.insert(ops);
      g.events.insert(events.begin(), events.end());
      g.timed.insert(timed);
      g.vars = fact.vars;
    }
  }
}

}  // namespace

namespace {

// Events: what a record captured, where certain on both sides; where and on
// which stream each was last recorded, on either; complete for the host on both.
void JoinEvents(const FlowState& a, const FlowState& b, FlowState* out_state) {
  FlowState& out = *out_state;
  std::set<std::string> events;
  for (const auto& [k, v] : a.event_capture) events.insert(k);
  for (const auto& [k, v] : b.event_capture) events.insert(k);
  for (const std::string& e : events) {
    static const OpSet kEmpty;
    auto ia = a.event_capture.find(e);
    auto ib = b.event_capture.find(e);
    // Not recorded on one side: a wait there orders nothing, so nothing is certain.
    if (ia == a.event_capture.end() || ib == b.event_capture.end()) {
      const OpSet& have = ia != a.event_capture.end() ? ia->second : ib->second;
      const FlowState& other = ia != a.event_capture.end() ? b : a;
      OpSet kept;
      for (int x : have) {
        if (other.pending.count(x) == 0) kept.insert(x);
      }
      out.event_capture[e] = kept;
      continue;
    }
    out.event_capture[e] = MeetOrdered(ia->second, a, ib->second, b);
  }
  out.event_recorded = a.event_recorded;
  out.event_recorded.insert(b.event_recorded.begin(), b.event_recorded.end());
  out.event_stream = a.event_stream;
  out.event_stream.insert(b.event_stream.begin(), b.event_stream.end());
  out.events_created = a.events_created;
  out.events_created.insert(b.events_created.begin(), b.events_created.end());
  std::set_intersection(a.events_host_complete.begin(), a.events_host_complete.end(),
                        b.events_host_complete.begin(), b.events_host_complete.end(),
                        std::inserter(out.events_host_complete, out.events_host_complete.end()));
}

// Captures open on either side, and graphs: their nodes and allocations on
// either side, their frees on both.
void JoinCaptures(const FlowState& a, const FlowState& b, FlowState* out_state) {
  FlowState& out = *out_state;
  out.capturing = a.capturing;
  out.capturing.insert(b.capturing.begin(), b.capturing.end());
  out.capture_guards = a.capture_guards;
  out.capture_guards.insert(b.capture_guards.begin(), b.capture_guards.end());
  out.capture_sites = a.capture_sites;
  out.capture_sites.insert(b.capture_sites.begin(), b.capture_sites.end());
  out.graphs = a.graphs;
  for (const auto& [k, v] : b.graphs) {
    auto [it, inserted] = out.graphs.try_emplace(k, v);
    if (inserted) continue;
    GraphInfo& g = it->second;
    g.nodes.insert(v.nodes.begin(), v.nodes.end());
    g.allocates.insert(v.allocates.begin(), v.allocates.end());
    std::erase_if(g.frees, [&](const std::string& f) { return v.frees.count(f) == 0; });
  }
}

}  // namespace

FlowState Join(const FlowState& a, const FlowState& b) { return Join(FlowState(a), b); }

FlowState Join(FlowState&& moved, const FlowState& b) {
  if (!moved.reached) return b;
  if (!b.reached) return std::move(moved);
  const FlowState& a = moved;  // read as it came until the maps move at the end
  FlowState out;
  out.reached = true;
  out.pending = Union(a.pending, b.pending);
  std::set<std::string> streams;
  for (const auto& [k, v] : a.after) streams.insert(k);
  for (const auto& [k, v] : b.after) streams.insert(k);
  for (const std::string& k : streams) {
    out.after[k] = MeetOrdered(AfterSet(a, k), a, AfterSet(b, k), b);
  }
  out.after_any_blocking = MeetOrdered(a.after_any_blocking, a, b.after_any_blocking, b);
  out.streams = a.streams;
  for (const auto& [k, v] : b.streams) {
    auto [it, inserted] = out.streams.try_emplace(k, v);
    if (!inserted && !(it->second == v)) {
      if (it->second.kind != v.kind) it->second.kind = StreamKind::kUnknown;
      it->second.owned = it->second.owned && v.owned;
    }
  }
  JoinEvents(a, b, &out);
  if (a.since_clock || b.since_clock) {
    out.since_clock = Union(a.since_clock.value_or(OpSet{}), b.since_clock.value_or(OpSet{}));
    const FlowState& read = a.since_clock ? a : b;
    out.clock_loc = read.clock_loc;
    out.clock_inner_loc = read.clock_inner_loc;
    out.clock_context = read.clock_context;
  }
  JoinCaptures(a, b, &out);
  out.legacy_bypassed = Union(a.legacy_bypassed, b.legacy_bypassed);
  if (a.returned == b.returned) out.returned = a.returned;
  if (a.returned_query == b.returned_query) out.returned_query = a.returned_query;
  if (!a.facts.empty() || !b.facts.empty() || !a.guarded.empty() || !b.guarded.empty()) JoinGuards(a, b, &out);
  // Links to a launch's condition that hold on both sides (vacuously where the op is not pending).
  for (const auto* side : {&a, &b}) {
    const FlowState& other = side == &a ? b : a;
    for (const auto& [key, link] : side->launched_under) {
      auto theirs = other.launched_under.find(key);
      OpSet kept;
      for (int id : link.ops) {
        if (other.pending.count(id) == 0 || (theirs != other.launched_under.end() && theirs->second.ops.count(id) != 0)) {
          kept.insert(id);
        }
      }
      if (kept.empty()) continue;
      FlowState::Guard& g = out.launched_under[key];
      g.ops.insert(kept);
      g.vars = link.vars;
    }
  }
  // A polling loop's head: "not cudaSuccess" on entry, the query's result
  // from the loop; only the query's can take the loop's success exit.
  for (const auto& [k, x] : a.query_results) {
    auto it = b.query_results.find(k);
    if (it == b.query_results.end()) continue;
    const FlowState::QueryResult& y = it->second;
    if (x == y || y.target.empty()) {
      out.query_results.emplace(k, x);
    } else if (x.target.empty()) {
      out.query_results.emplace(k, y);
    }
  }
  // The maps last, moved from `a` and merged in place (nothing above reads them after).
  out.buffers = std::move(moved.buffers);
  for (const auto& [k, v] : b.buffers) {
    // Only in one branch: the other side may not have allocated it; keep what is known.
    auto [it, only_b] = out.buffers.try_emplace(k, v);
    if (!only_b && it->second.kind != v.kind) out.buffers.erase(it);
  }
  out.freed = std::move(moved.freed);
  MergeInto(out.freed, b.freed, [](const clang::SourceLocation& x, const clang::SourceLocation&) { return &x; });
  out.aliases = std::move(moved.aliases);
  MergeInto(out.aliases, b.aliases, [](const BufferRef& x, const BufferRef& y) -> const BufferRef* {
    if (x.base.key != y.base.key) return nullptr;
    if (x.offset_key == y.offset_key) return &x;
    // A pointer stepped through a buffer (`++p` in a loop): keep where the
    // walk starts, the element its first step touches.
    const auto starts = [](const BufferRef& start, const BufferRef& later) {
      return later.offset_key.rfind(start.offset_key, 0) == 0 &&
             (start.offset_key.empty() || later.offset_key[start.offset_key.size()] == '+');
    };
    if (starts(x, y)) return &x;
    if (starts(y, x)) return &y;
    return nullptr;
  });
  out.values = std::move(moved.values);
  MergeInto(out.values, b.values, [](const Symbol& x, const Symbol& y) { return x.key == y.key ? &x : nullptr; });
  out.facts = std::move(moved.facts);
  MergeInto(out.facts, b.facts, Same<FlowState::Fact>);
  out.known_values = std::move(moved.known_values);
  MergeInto(out.known_values, b.known_values, Same<KnownValue>);
  out.query_values = std::move(moved.query_values);
  MergeInto(out.query_values, b.query_values, Same<QueryValue>);
  out.rebound = std::move(moved.rebound);
  out.rebound.insert(b.rebound.begin(), b.rebound.end());
  return out;
}

Overlap Overlaps(const BufferAccess& a, const BufferAccess& b) {
  if (a.ref.base.key != b.ref.base.key) return Overlap::kNo;
  if (!a.index_range.empty() && !b.index_range.empty() && a.index_range != b.index_range &&
      a.ref.offset_key == b.ref.offset_key) {
    return Overlap::kMaybe;
  }
  if (a.ref.offset_key == b.ref.offset_key) return Overlap::kYes;
  if (a.ref.offset_bytes && b.ref.offset_bytes) {
    const int64_t lo_a = *a.ref.offset_bytes, lo_b = *b.ref.offset_bytes;
    if (a.size_bytes && b.size_bytes) {
      return lo_a < lo_b + *b.size_bytes && lo_b < lo_a + *a.size_bytes ? Overlap::kYes : Overlap::kNo;
    }
    // An extent unknown (a kernel's argument): the access still touches the
    // byte it starts at, so starting inside the other access is overlapping it.
    const auto inside = [](int64_t at, int64_t lo, const std::optional<int64_t>& size) {
      return size && at >= lo && at < lo + *size;
    };
    if (lo_a == lo_b || inside(lo_b, lo_a, a.size_bytes) || inside(lo_a, lo_b, b.size_bytes)) return Overlap::kYes;
    if (a.size_bytes && lo_b >= lo_a + *a.size_bytes) return Overlap::kNo;
    if (b.size_bytes && lo_a >= lo_b + *b.size_bytes) return Overlap::kNo;
    return Overlap::kMaybe;
  }
  // The whole buffer (no offset, no extent: a kernel's pointer argument)
  // against a part at a constant offset: the part is inside. Against a part
  // at a symbolic offset (`out + n`, the second half of double buffering) the
  // whole may well end where the part starts.
  const auto whole = [](const BufferAccess& x) {
    return x.ref.offset_key.empty() && !x.size_bytes && x.size_key.empty();
  };
  if ((whole(a) && b.ref.offset_bytes) || (whole(b) && a.ref.offset_bytes)) return Overlap::kYes;
  // p + i*chunk vs p + j*chunk and the like: nothing certain.
  return Overlap::kMaybe;
}

namespace {

// The smallest k >= from with `start + step * k >= at` (step > 0).
int64_t FirstStepReaching(int64_t start, int64_t step, int64_t at, int64_t from) {
  const int64_t gap = at - start;
  const int64_t k = gap <= 0 ? -((-gap) / step) : (gap + step - 1) / step;
  return std::max(k, from);
}

// Two accesses made in one run of a loop, the earlier one at the same
// iteration as the later one or at one before it (`same_iteration` says
// whether the same is possible), at offsets that move by the same stride:
// iteration k steps later, the later access starts x_k = first_l - first_e +
// step * k bytes after the earlier one. None when they are not of that kind.
std::optional<Overlap> OverlapAcrossIterations(const BufferAccess& earlier, const BufferAccess& later,
                                               bool same_iteration) {
  if (!earlier.stride || !later.stride) return std::nullopt;
  const LoopStride& e = *earlier.stride;
  const LoopStride& l = *later.stride;
  if (e.loop != l.loop || e.context != l.context || e.root != l.root || e.step_bytes != l.step_bytes ||
      earlier.ref.base.key != later.ref.base.key) {
    return std::nullopt;
  }
  const int64_t delta = l.first_bytes - e.first_bytes;
  const int64_t step = e.step_bytes;
  const int64_t from = same_iteration ? 0 : 1;
  // Certainly overlapping where x_k is in [lo, hi]: the later access starts
  // inside the earlier one or the earlier inside the later one (an unknown
  // extent still covers the byte it starts at).
  const int64_t lo = later.size_bytes ? 1 - *later.size_bytes : 0;
  const int64_t hi = earlier.size_bytes ? *earlier.size_bytes - 1 : 0;
  if (lo <= hi) {
    const int64_t k = FirstStepReaching(delta, step, lo, from);
    if (delta + step * k <= hi) return Overlap::kYes;
  }
  // Apart where x_k >= the earlier's extent or x_k <= -the later's; an
  // unknown extent leaves that side open.
  if (!earlier.size_bytes) return Overlap::kMaybe;
  if (!later.size_bytes && delta + step * from < 0) return Overlap::kMaybe;
  return Overlap::kNo;
}

// Also compares the first iteration's accesses of accesses made in loops.
Overlap OverlapsAtSomeStep(const BufferAccess& a, const BufferAccess& b) {
  const Overlap written = Overlaps(a, b);
  if (written == Overlap::kYes || (!a.first_step && !b.first_step)) return written;
  BufferAccess a1 = a, b1 = b;
  if (a.first_step) a1.ref = *a.first_step;
  if (b.first_step) b1.ref = *b.first_step;
  if (Overlaps(a1, b) == Overlap::kYes || Overlaps(a, b1) == Overlap::kYes || Overlaps(a1, b1) == Overlap::kYes) {
    return Overlap::kYes;
  }
  return written;
}

std::optional<FindingKind> KindOfPair(AccessMode earlier, AccessMode later) {
  if (!MayWrite(earlier) && !MayWrite(later)) return std::nullopt;
  if (later == AccessMode::kRead) return FindingKind::kReadAfterWrite;
  if (earlier == AccessMode::kRead) return FindingKind::kWriteAfterRead;
  return FindingKind::kWriteAfterWrite;
}

// An access the earlier op made only if a condition held at its launch, on a
// path where the condition was false since then: not made.
bool NotMade(const FlowState& s, const DeviceOp& earlier, const BufferAccess& ea) {
  if (ea.only_if.empty()) return false;
  auto link = s.launched_under.find(ea.only_if);
  if (link == s.launched_under.end() || link->second.ops.count(earlier.id) == 0) return false;
  if (auto fact = s.facts.find(ea.only_if); fact != s.facts.end()) return !fact->second.value;
  auto guard = s.guarded.find(GuardKey(ea.only_if, false));
  return guard != s.guarded.end() && guard->second.ops.count(earlier.id) != 0;
}

// Whether the earlier op's pending run can be of the iteration the later
// op's access is made in, both in one run of a loop (LoopStride): not when
// the earlier op comes after it in the body (or is it), unless a loop inside
// the body repeats both.
bool SameIterationPossible(const DeviceOp& earlier, const LoopStride& e, const DeviceOp* later, const LoopStride& l) {
  if (e.inner_loop != nullptr && e.inner_loop == l.inner_loop) return true;
  if (later != nullptr && later->id == earlier.id) return false;
  return e.statement == l.statement || e.statement_offset <= l.statement_offset;
}

// Both accesses made in one run of a frame's loop at pointers that move with
// its counter by an amount not known (UnknownStrides), the earlier one of an
// earlier iteration only: at a distance not known, so not a certain overlap.
bool AtUnknownDistance(const DeviceOp& earlier, const BufferAccess& ea, const DeviceOp& later,
                       const BufferAccess& la) {
  for (const LoopStride& e : ea.unknown_strides) {
    for (const LoopStride& l : la.unknown_strides) {
      if (e.loop == l.loop && e.context == l.context && !SameIterationPossible(earlier, e, &later, l)) return true;
    }
  }
  return false;
}

void Collect(const DeviceOp& earlier, const BufferAccess& later, bool legacy_assumed, const FlowState& s,
             std::vector<Conflict>* out, const DeviceOp* later_op = nullptr) {
  for (const BufferAccess& ea : earlier.accesses) {
    if (ea.atomic && later.atomic) continue;
    if (NotMade(s, earlier, ea)) continue;
    if (later_op != nullptr && AtUnknownDistance(earlier, ea, *later_op, later)) continue;
    std::optional<Overlap> across;
    if (later_op != nullptr && ea.stride && later.stride) {
      across = OverlapAcrossIterations(ea, later, SameIterationPossible(earlier, *ea.stride, later_op, *later.stride));
    }
    if ((across ? *across : OverlapsAtSomeStep(ea, later)) != Overlap::kYes) continue;
    const std::optional<FindingKind> kind = KindOfPair(ea.mode, later.mode);
    if (!kind) continue;
    Conflict c;
    c.earlier = &earlier;
    c.earlier_access = ea;
    c.later_access = later;
    c.kind = *kind;
    c.legacy_assumed = legacy_assumed;
    const bool unknown = ea.mode == AccessMode::kUnknown || later.mode == AccessMode::kUnknown;
    const bool whole = ea.ref.offset_key != later.ref.offset_key;
    c.confidence = unknown || earlier.staged_destination ? Confidence::kPossible
                   : whole                                ? Confidence::kLikely
                                                          : Confidence::kCertain;
    out->push_back(c);
    return;  // one conflict per pair of operations
  }
}

// The conflicts of two ops issued on `streams[*]`-like keys that are told
// apart only by their first iterations' streams: first step against first
// step (an access made outside a loop is its own first step).
void FirstStepConflicts(const DeviceOp& earlier, const DeviceOp& later, const FlowState& s,
                        std::vector<Conflict>* out) {
  if (earlier.first_step_stream.empty() && later.first_step_stream.empty()) return;
  const std::string& ek = earlier.first_step_stream.empty() ? earlier.stream.key : earlier.first_step_stream.key;
  const std::string& lk = later.first_step_stream.empty() ? later.stream.key : later.first_step_stream.key;
  if (!DistinctStreams(s, ek, lk)) return;
  DeviceOp first = earlier;
  for (BufferAccess& a : first.accesses) {
    if (a.first_step) a.ref = *a.first_step;
    a.first_step.reset();
    a.stride.reset();
    a.unknown_strides.clear();
  }
  for (BufferAccess a : later.accesses) {
    if (a.first_step) a.ref = *a.first_step;
    a.first_step.reset();
    a.stride.reset();
    a.unknown_strides.clear();
    const size_t before = out->size();
    Collect(first, a, false, s, out);
    if (out->size() == before) continue;
    out->back().earlier = &earlier;  // the op itself, not the copy
    return;
  }
}

}  // namespace

std::vector<Conflict> DeviceConflicts(const DeviceOp& later, const FlowState& s, const OpTable& ops) {
  std::vector<Conflict> out;
  StreamKinds kinds(s);
  const OrderCheck order(s, later.stream.key, ops);
  const StreamKind lk = KindOf(s, later.stream.key);
  std::vector<signed char> distinct;  // by stream id: -1 not yet known
  for (int id : s.pending) {
    const DeviceOp& earlier = ops[id];
    if (earlier.captured != later.captured) continue;  // captured work runs at graph launch
    if (order.Before(earlier, kinds)) continue;
    bool apart;
    if (earlier.stream_id >= 0) {
      if (static_cast<size_t>(earlier.stream_id) >= distinct.size()) distinct.resize(earlier.stream_id + 1, -1);
      signed char& d = distinct[earlier.stream_id];
      if (d < 0) d = DistinctStreams(s, earlier.stream.key, later.stream.key) ? 1 : 0;
      apart = d == 1;
    } else {
      apart = DistinctStreams(s, earlier.stream.key, later.stream.key);
    }
    if (!apart) {
      // `streams[i]` in a loop against `streams[1]`: their first iterations'
      // streams differ, and so may race on the first iterations' accesses.
      FirstStepConflicts(earlier, later, s, &out);
      continue;
    }
    // A legacy-stream op on one side and a non-blocking stream on the other:
    // the code relied on the legacy stream's implicit barrier.
    const StreamKind ek = kinds.Of(earlier);
    const bool legacy_assumed =
        (ek == StreamKind::kNonBlocking && (lk == StreamKind::kLegacy || s.legacy_bypassed.count(id) != 0)) ||
        (lk == StreamKind::kNonBlocking && ek == StreamKind::kLegacy);
    for (const BufferAccess& a : later.accesses) {
      const size_t before = out.size();
      Collect(earlier, a, legacy_assumed, s, &out, &later);
      if (out.size() != before) break;
    }
  }
  return out;
}

std::vector<Conflict> HostConflicts(const HostAccess& later, const FlowState& s, const OpTable& ops) {
  std::vector<Conflict> out;
  for (int id : s.pending) {
    const DeviceOp& earlier = ops[id];
    if (earlier.captured) continue;
    const bool legacy_assumed = s.legacy_bypassed.count(id) != 0;
    Collect(earlier, later.access, legacy_assumed, s, &out);
  }
  return out;
}

void IssueOp(FlowState& s, DeviceOp& op, const OpTable& ops) {
  const std::string& t = op.stream.key;
  if (s.capturing.count(t) != 0) op.captured = true;
  s.after.try_emplace(t, AfterSet(s, t));
  const StreamKind kind = KindOf(s, t);
  if ((kind == StreamKind::kLegacy || kind == StreamKind::kPerThread) && !op.captured) {
    // The legacy stream waits for the earlier work of every blocking stream,
    // and blocking streams' later work waits for it. The per-thread stream
    // is blocking: it is ordered with the legacy stream only.
    OpSet waited, bypassed;  // filled in increasing order, merged once
    StreamKinds kinds(s);
    for (int id : s.pending) {
      const StreamKind k = kinds.Of(ops[id]);
      if (k == StreamKind::kNonBlocking) {
        if (kind == StreamKind::kLegacy) bypassed.insert(id);
      } else if (kind == StreamKind::kLegacy || k == StreamKind::kLegacy) {
        waited.insert(id);
      }
    }
    s.after[t].insert(waited);
    s.legacy_bypassed.insert(bypassed);
  }
  s.after[t].insert(op.id);
  if (kind == StreamKind::kLegacy && !op.captured) {
    const OpSet carried = s.after[t];
    for (auto& [key, set] : s.after) {
      if (key != t && IsBlocking(KindOf(s, key))) set.insert(carried.begin(), carried.end());
    }
    s.after_any_blocking.insert(carried.begin(), carried.end());
  }
  s.pending.insert(op.id);
  // A staged blocking copy's tail is not what a host clock around it times.
  // Nor is a stream-ordered allocation's bookkeeping.
  if (s.since_clock && !op.captured && !op.staged_destination && op.allocates.empty()) s.since_clock->insert(op.id);
  // Issued again (the next iteration of a loop): pending and timed on every
  // path now, whatever a condition's later edge says of the earlier issue.
  for (auto it = s.guarded.begin(); it != s.guarded.end();) {
    it->second.ops.erase(op.id);
    it->second.timed.erase(op.id);
    it = it->second.empty() ? s.guarded.erase(it) : std::next(it);
  }
}

void Complete(FlowState& s, const OpSet& ops) { s.pending.erase(ops); }

namespace {

// Whether a write of `var` (every variable, for "") changes what `read`
// reads: `t` written covers `t.data_`, `(*t).data_` and `t[i]` read.
bool WriteCovers(std::string_view var, std::string_view read) {
  return var.empty() || ReachedThrough(read, var, /*itself=*/true);
}

bool WriteCovers(std::string_view var, const std::vector<std::string>& vars) {
  if (var.empty()) return true;
  for (const std::string& v : vars)
    if (WriteCovers(var, v)) return true;
  return false;
}

}  // namespace

bool ReachedThrough(std::string_view key, std::string_view root, bool itself) {
  const auto bare = [](std::string_view k) {
    const size_t start = k.find_first_not_of("&*");
    return start == std::string_view::npos ? std::string_view() : k.substr(start);
  };
  if (key == root) return itself;
  const std::string_view r = bare(root), k = bare(key);
  if (r.empty() || !k.starts_with(r)) return false;
  return k.size() == r.size() ? itself : k[r.size()] == '.' || k[r.size()] == '[';
}

void ForgetFacts(FlowState& s, const std::string& var, bool values) {
  if (values) ForgetKnownValues(s, var);
  if (s.facts.empty() && s.guarded.empty() && s.launched_under.empty() && s.query_values.empty()) return;
  const auto reads = [&](const std::vector<std::string>& vars) { return WriteCovers(var, vars); };
  s.query_values.erase(var);
  std::erase_if(s.query_values, [&](const auto& q) { return reads(q.second.vars); });
  std::erase_if(s.facts, [&](const auto& f) { return reads(f.second.vars); });
  // Ops guarded by a condition that may now go either way are pending whatever it says.
  std::erase_if(s.guarded, [&](const auto& g) { return reads(g.second.vars); });
  std::erase_if(s.launched_under, [&](const auto& g) { return reads(g.second.vars); });
}

void ForgetKnownValues(FlowState& s, const std::string& var) {
  if (s.known_values.empty()) return;
  std::erase_if(s.known_values, [&](const auto& v) { return WriteCovers(var, std::string_view(v.first)); });
}

void HostSyncStream(FlowState& s, const std::string& stream, const OpTable& ops) {
  OpSet done;  // filled in increasing order, merged with the after set once
  OpSet bypassed;
  const bool legacy = KindOf(s, stream) == StreamKind::kLegacy;
  const int stream_id = ops.FindStreamId(stream);
  StreamKinds kinds(s);
  for (int id : s.pending) {
    const DeviceOp& op = ops[id];
    if (op.captured) continue;
    const bool same = op.stream_id >= 0 && stream_id >= 0 ? op.stream_id == stream_id : op.stream.key == stream;
    if (same) done.insert(id);
    if (legacy && !same) {
      // Synchronizing the legacy stream waits for blocking streams only.
      if (kinds.Of(op) == StreamKind::kNonBlocking) {
        bypassed.insert(id);
      } else {
        done.insert(id);
      }
    }
  }
  done.insert(AfterSet(s, stream));
  s.legacy_bypassed.insert(bypassed);
  Complete(s, done);
  for (const auto& [event, rec_stream] : s.event_stream) {
    if (rec_stream.key == stream || legacy) s.events_host_complete.insert(event);
  }
}

void HostSyncDevice(FlowState& s, const OpTable& ops) {
  // Work captured into a graph is not running; it stays for EndCapture.
  OpSet done;
  for (int id : s.pending) {
    if (!ops[id].captured) done.insert(id);
  }
  Complete(s, done);
  for (const auto& [event, loc] : s.event_recorded) s.events_host_complete.insert(event);
}

void RecordEvent(FlowState& s, const std::string& event, const Symbol& stream, clang::SourceLocation loc,
                 const OpTable& ops) {
  OpSet captured = AfterSet(s, stream.key);
  StreamKinds kinds(s);
  const OrderCheck order(s, stream.key, ops);
  OpSet pending_before;  // filled in increasing order, merged once
  for (int id : s.pending) {
    if (order.Before(ops[id], kinds)) pending_before.insert(id);
  }
  captured.insert(pending_before);
  s.event_capture[event] = captured;
  s.event_recorded[event] = loc;
  s.event_stream[event] = stream;
  s.events_host_complete.erase(event);
  // A condition's later edge says nothing of the new record.
  for (auto it = s.guarded.begin(); it != s.guarded.end();) {
    it->second.events.erase(event);
    it = it->second.empty() ? s.guarded.erase(it) : std::next(it);
  }
}

void StreamWaitEvent(FlowState& s, const std::string& stream, const std::string& event) {
  auto it = s.event_capture.find(event);
  if (it == s.event_capture.end()) return;
  OpSet& after = s.after.try_emplace(stream, AfterSet(s, stream)).first->second;
  after.insert(it->second.begin(), it->second.end());
  // Waiting on an event recorded in a capturing stream joins the capture.
  if (auto rec = s.event_stream.find(event); rec != s.event_stream.end()) {
    if (auto cap = s.capturing.find(rec->second.key); cap != s.capturing.end()) {
      s.capturing[stream] = cap->second;
    }
  }
}

void HostSyncEvent(FlowState& s, const std::string& event, const OpTable& ops) {
  // An event recorded on the legacy stream would have covered the
  // non-blocking streams' work too, were they blocking.
  if (auto rec = s.event_stream.find(event); rec != s.event_stream.end() && rec->second.key == kLegacyStream) {
    StreamKinds kinds(s);
    for (int id : s.pending) {
      if (!ops[id].captured && kinds.Of(ops[id]) == StreamKind::kNonBlocking) s.legacy_bypassed.insert(id);
    }
  }
  if (auto it = s.event_capture.find(event); it != s.event_capture.end()) Complete(s, it->second);
  if (s.event_recorded.count(event) != 0) s.events_host_complete.insert(event);
}

}  // namespace streamcheck::lint
