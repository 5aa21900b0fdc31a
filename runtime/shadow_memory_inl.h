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

// Check on an interval in first-byte form (ShadowAccess::first_byte): the
// conflicts the two intervals it stands for would give, its first byte's
// (first-byte entries certain there) and then the rest's. Whether an entry
// conflicts does not depend on which part it is in; only what is reported.
template <typename IsHost>
[[gnu::always_inline]] inline size_t CheckFirstByte(const ShadowInterval& iv, Address begin, const ShadowAccess& now,
                                                    const VectorClock& clock, IsHost& is_host,
                                                    std::vector<ShadowConflict>* out) {
  const size_t before = out->size();
  Check(iv, begin, now, clock, is_host, out);
  const size_t found = out->size() - before;
  if (found == 0) [[likely]] return 0;
  out->resize(before + 2 * found);
  for (size_t i = 0; i < found; ++i) {
    const ShadowAccess earlier = (*out)[before + i].earlier;
    (*out)[before + i] = {HeadPart(earlier), begin, begin + 1};
    (*out)[before + found + i] = {TailPart(earlier), begin + 1, iv.end};
  }
  return found;
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
    if (ShadowAccess* same_lane = iv.reads.FindLane(now.lane)) iv.reads.Replace(same_lane, now);
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
                          std::vector<ShadowConflict>* conflicts, AccessContext context) {
  if (size == 0) return;
  const Address end = addr + size;
  const bool keep_under_write = context.host_threads_unordered && now.kind != ShadowKind::kRead && is_host(now.lane);
  // Fast path: the access covers exactly one existing interval.
  if (ShadowInterval* iv = intervals_.Find(addr); iv != nullptr && iv->end == end) {
    if (!InFirstByteForm(*iv)) [[likely]] {
      shadow_detail::Check(*iv, addr, now, clock, is_host, conflicts);
      shadow_detail::Record(*iv, now, keep_under_write, clock, is_host);
      return;
    }
    // The two intervals a first-byte one stands for, both reached whole
    // (CheckFirstByte gives their conflicts). They merge where `now`
    // replaced every first-byte entry, and with nothing beside them, which
    // would have to hold `now` to be the same.
    if (context.Alone(addr, end)) {
      shadow_detail::CheckFirstByte(*iv, addr, now, clock, is_host, conflicts);
      shadow_detail::Record(*iv, now, keep_under_write, clock, is_host);
      if (!InFirstByteForm(*iv)) --first_byte_intervals_;
      return;
    }
  }
  AccessSlow(addr, end, now, clock, is_host, conflicts, keep_under_write);
}

template <typename IsHost>
void ShadowMemory::AccessSlow(Address addr, Address end, const ShadowAccess& now, const VectorClock& clock,
                              IsHost& is_host, std::vector<ShadowConflict>* conflicts, bool keep_under_write) {
  const bool split = SplitFirstBytes(addr, end);
  AccessSplit(addr, end, now, clock, is_host, conflicts, keep_under_write);
  if (split) JoinFirstBytes(addr, end);
}

template <typename IsHost>
size_t ShadowMemory::AccessFirstByte(Address addr, uint64_t size, const ShadowAccess& now,
                                     const VectorClock& clock, IsHost is_host,
                                     std::vector<ShadowConflict>* conflicts, AccessContext context) {
  const Address end = addr + size;
  const bool keep_under_write = context.host_threads_unordered && now.kind != ShadowKind::kRead && is_host(now.lane);
  // Fast path: the extent seen before. In first-byte form, both of its
  // parts record `now` where they held the same entry, so it stays so. A
  // plain interval splits in two that differ in `now`, and nothing beside
  // them merges with them if the access is alone. The first access to an
  // extent left its two parts apart (most are the only one before the
  // memory is freed or handed out again): the second joins them.
  ShadowInterval* iv = intervals_.Find(addr);
  if (iv == nullptr) [[unlikely]] return AccessFirstByteSlow(addr, end, now, clock, is_host, conflicts, keep_under_write);
  if (iv->end != end) [[unlikely]] {
    const ShadowInterval* rest = iv->end == addr + 1 ? intervals_.Find(addr + 1) : nullptr;
    if (rest == nullptr || rest->end != end || !JoinFirstByteAt(addr))
      return AccessFirstByteSlow(addr, end, now, clock, is_host, conflicts, keep_under_write);
    iv = intervals_.Find(addr);
  }
  const bool first_byte_form = InFirstByteForm(*iv);
  if (!first_byte_form && !context.Alone(addr, end)) [[unlikely]]
    return AccessFirstByteSlow(addr, end, now, clock, is_host, conflicts, keep_under_write);
  const size_t first = shadow_detail::CheckFirstByte(*iv, addr, now, clock, is_host, conflicts);
  shadow_detail::Record(*iv, now, keep_under_write, clock, is_host);
  if (!first_byte_form) ++first_byte_intervals_;
  return first;
}

template <typename IsHost>
size_t ShadowMemory::AccessFirstByteSlow(Address addr, Address end, const ShadowAccess& now, const VectorClock& clock,
                                         IsHost& is_host, std::vector<ShadowConflict>* conflicts,
                                         bool keep_under_write) {
  const bool split = SplitFirstBytes(addr, end);
  const size_t before = conflicts->size();
  AccessSplit(addr, addr + 1, HeadPart(now), clock, is_host, conflicts, keep_under_write);
  const size_t first = conflicts->size() - before;
  AccessSplit(addr + 1, end, TailPart(now), clock, is_host, conflicts, keep_under_write);
  if (split) JoinFirstBytes(addr, end);
  return first;
}

template <typename IsHost>
void ShadowMemory::AccessSplit(Address addr, Address end, const ShadowAccess& now, const VectorClock& clock,
                               IsHost& is_host, std::vector<ShadowConflict>* conflicts, bool keep_under_write) {
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
  // Freeing twice is a different bug (the runtime rejects it); only report
  // accesses that may still be running.
  auto check = [&](const ShadowInterval& iv, Address b, Address e, ShadowAccess (*part)(ShadowAccess)) {
    if (iv.write.valid() && iv.write.kind != ShadowKind::kFree &&
        shadow_detail::Unordered(iv.write, free, clock, is_host))
      conflicts->push_back({part(iv.write), b, e});
    for (size_t i = 0; i < iv.reads.size(); ++i)
      if (shadow_detail::Unordered(iv.reads[i], free, clock, is_host)) conflicts->push_back({part(iv.reads[i]), b, e});
  };
  Overlapping(addr, end, &covering_);
  for (Address begin : covering_) {
    const ShadowInterval& iv = *intervals_.Find(begin);
    if (!InFirstByteForm(iv)) [[likely]] {
      check(iv, std::max(begin, addr), std::min(iv.end, end), [](ShadowAccess a) { return a; });
      continue;
    }
    // The two intervals it stands for, those of them the range reaches.
    if (begin >= addr) check(iv, begin, begin + 1, HeadPart);
    if (begin + 1 < end) check(iv, std::max(begin + 1, addr), std::min(iv.end, end), TailPart);
  }
  // The range then holds only `after`: a first-byte interval in it goes,
  // one across a bound is cut (SplitAt), and neither merges with the marker.
  Reset(addr, size, after);
}

}  // namespace streamcheck
