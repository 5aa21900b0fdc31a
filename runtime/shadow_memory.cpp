#include "runtime/shadow_memory.h"

namespace streamcheck {

ShadowMemory::Map::iterator ShadowMemory::Insert(Map::iterator hint, Address begin,
                                                 ShadowInterval interval) {
  auto it = intervals_.emplace_hint(hint, begin, std::move(interval));
  by_begin_.Set(begin, &it->second);
  return it;
}

ShadowMemory::Map::iterator ShadowMemory::Erase(Map::iterator it) {
  by_begin_.Erase(it->first);
  return intervals_.erase(it);
}

ShadowMemory::Map::iterator ShadowMemory::SplitAt(Map::iterator it, Address at) {
  // Precondition: it->first < at < it->second.end.
  ShadowInterval tail = it->second;
  it->second.end = at;
  return Insert(std::next(it), at, std::move(tail));
}

ShadowMemory::Map::iterator ShadowMemory::Carve(Address addr, Address end) {
  // Split the interval that straddles `addr`, if any.
  auto it = intervals_.lower_bound(addr);
  if (it != intervals_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end > addr) it = SplitAt(prev, addr);
  }
  // Walk [addr, end), filling gaps and splitting the interval that straddles `end`.
  Address cursor = addr;
  Map::iterator first = intervals_.end();
  while (cursor < end) {
    if (it == intervals_.end() || it->first > cursor) {
      const Address gap_end = (it == intervals_.end()) ? end : std::min(end, it->first);
      ShadowInterval fresh;
      fresh.end = gap_end;
      it = Insert(it, cursor, std::move(fresh));
    } else if (it->second.end > end) {
      SplitAt(it, end);
    }
    if (first == intervals_.end()) first = it;
    cursor = it->second.end;
    ++it;
  }
  return first;
}

namespace {

bool SameState(const ShadowInterval& a, const ShadowInterval& b) {
  if (!a.write.SameAs(b.write) || a.reads.size() != b.reads.size()) return false;
  for (size_t i = 0; i < a.reads.size(); ++i)
    if (!a.reads[i].SameAs(b.reads[i])) return false;
  return true;
}

}  // namespace

void ShadowMemory::MergeAround(Address addr, Address end) {
  auto it = intervals_.lower_bound(addr);
  if (it != intervals_.begin()) --it;
  while (it != intervals_.end()) {
    auto next = std::next(it);
    if (next == intervals_.end() || next->first > end) break;
    if (it->second.end == next->first && SameState(it->second, next->second)) {
      it->second.end = next->second.end;
      Erase(next);
    } else {
      it = next;
    }
  }
}

void ShadowMemory::Reset(Address addr, uint64_t size, const ShadowAccess& marker) {
  if (size == 0) return;
  const Address end = addr + size;
  auto it = Carve(addr, end);
  while (it != intervals_.end() && it->first < end) it = Erase(it);
  if (marker.valid()) {
    ShadowInterval iv;
    iv.end = end;
    iv.write = marker;
    Insert(it, addr, std::move(iv));
    MergeAround(addr, end);
  }
}

}  // namespace streamcheck
