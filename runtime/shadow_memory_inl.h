// The access hot path, inlined into the engine. Forced: left to itself GCC
// moved Check out of line when ReadSet changed (a call per access, ~30
// instructions each).
#pragma once

#include <iterator>

namespace streamcheck {
namespace shadow_detail {

template <typename IsHost>
[[gnu::always_inline]] inline bool Unordered(const ShadowAccess& earlier, const ShadowAccess& now, const VectorClock& clock,
                      IsHost& is_host) {
  if (earlier.lane == now.lane) return false;  // one lane is totally ordered
  if (clock.Covers(earlier.epoch())) return false;
  return !(is_host(earlier.lane) && is_host(now.lane));
}

template <typename IsHost>
[[gnu::always_inline]] inline void Check(const ShadowInterval& iv, Address begin, const ShadowAccess& now,
                  const VectorClock& clock, IsHost& is_host, std::vector<ShadowConflict>* out) {
  const ShadowAccess& w = iv.write;
  // A free marker conflicts with any later use, ordered or not.
  if (w.valid() && (w.kind == ShadowKind::kFree || Unordered(w, now, clock, is_host)))
    out->push_back({w, begin, iv.end});
  if (ShadowKindWrites(now.kind)) {
    for (size_t i = 0; i < iv.reads.size(); ++i)
      if (Unordered(iv.reads[i], now, clock, is_host)) out->push_back({iv.reads[i], begin, iv.end});
  } else if (iv.reads.has_writes()) [[unlikely]] {
    for (size_t i = 0; i < iv.reads.size(); ++i)
      if (ShadowKindWrites(iv.reads[i].kind) && Unordered(iv.reads[i], now, clock, is_host))
        out->push_back({iv.reads[i], begin, iv.end});
  }
}

// With host threads that have their own clocks, a host write must not make
// shadow memory forget what came before it: another host thread may access
// the bytes later without being ordered after this write (host/host pairs are
// not reported), and such an access may race with what the write replaced.
// The earlier accesses stay beside the write; what this thread did before and
// host accesses it is ordered after cannot matter to anyone and go. A device
// write later clears them all (it is checked against each).
template <typename IsHost>
void RecordHostWrite(ShadowInterval& iv, const ShadowAccess& now, const VectorClock& clock, IsHost& is_host);

template <typename IsHost>
[[gnu::always_inline]] inline void Record(ShadowInterval& iv, const ShadowAccess& now, bool keep_under_write,
                                          const VectorClock& clock, IsHost& is_host) {
  if (now.kind == ShadowKind::kRead) {
    if (ShadowAccess* same_lane = iv.reads.FindLane(now.lane)) *same_lane = now;
    else iv.reads.push_back(now);
    return;
  }
  if (keep_under_write) [[unlikely]] {
    RecordHostWrite(iv, now, clock, is_host);
    return;
  }
  // A read-write access is also a read, but the write subsumes it for later checks.
  iv.write = now;
  iv.reads.clear();
}

template <typename IsHost>
[[gnu::noinline]] void RecordHostWrite(ShadowInterval& iv, const ShadowAccess& now, const VectorClock& clock,
                                       IsHost& is_host) {
  auto kept = [&](const ShadowAccess& a) {
    if (!a.valid() || a.kind == ShadowKind::kFree || a.kind == ShadowKind::kAllocate || a.lane == now.lane) return false;
    return !is_host(a.lane) || !clock.Covers(a.epoch());
  };
  // At most this many stay (more: the oldest are forgotten, a race with them may be missed).
  ShadowAccess keep[16];
  size_t n = 0;
  if (kept(iv.write)) keep[n++] = iv.write;
  for (size_t i = 0; i < iv.reads.size() && n < std::size(keep); ++i)
    if (kept(iv.reads[i])) keep[n++] = iv.reads[i];
  iv.write = now;
  iv.reads.clear();
  for (size_t i = 0; i < n; ++i) iv.reads.push_back(keep[i]);
}

}  // namespace shadow_detail

template <typename IsHost>
void ShadowMemory::Access(Address addr, uint64_t size, const ShadowAccess& now,
                          const VectorClock& clock, IsHost is_host,
                          std::vector<ShadowConflict>* conflicts, bool host_threads_unordered) {
  if (size == 0) return;
  const Address end = addr + size;
  const bool keep_under_write = host_threads_unordered && now.kind != ShadowKind::kRead && is_host(now.lane);
  // Fast path: the access covers exactly one existing interval.
  if (ShadowInterval* iv = intervals_.Find(addr); iv != nullptr && iv->end == end) {
    shadow_detail::Check(*iv, addr, now, clock, is_host, conflicts);
    shadow_detail::Record(*iv, now, keep_under_write, clock, is_host);
    return;
  }
  Carve(addr, end);
  for (Address begin : covering_) {
    ShadowInterval& iv = *intervals_.Find(begin);
    shadow_detail::Check(iv, begin, now, clock, is_host, conflicts);
    shadow_detail::Record(iv, now, keep_under_write, clock, is_host);
  }
  MergeAround(addr, end);
}

template <typename IsHost>
void ShadowMemory::Free(Address addr, uint64_t size, const ShadowAccess& free,
                        const VectorClock& clock, IsHost is_host,
                        std::vector<ShadowConflict>* conflicts, const ShadowAccess& after) {
  if (size == 0) return;
  const Address end = addr + size;
  Overlapping(addr, end, &covering_);
  for (Address begin : covering_) {
    const ShadowInterval& iv = *intervals_.Find(begin);
    const Address b = std::max(begin, addr);
    const Address e = std::min(iv.end, end);
    // Freeing twice is a different bug (the runtime rejects it); only report
    // accesses that may still be running.
    if (iv.write.valid() && iv.write.kind != ShadowKind::kFree &&
        shadow_detail::Unordered(iv.write, free, clock, is_host))
      conflicts->push_back({iv.write, b, e});
    for (size_t i = 0; i < iv.reads.size(); ++i)
      if (shadow_detail::Unordered(iv.reads[i], free, clock, is_host)) conflicts->push_back({iv.reads[i], b, e});
  }
  Reset(addr, size, after);
}

}  // namespace streamcheck
