#include "runtime/shadow_memory.h"

#include <algorithm>

namespace streamcheck {

void ShadowMemory::Insert(Address begin, ShadowInterval interval) {
  intervals_.Set(begin, std::move(interval));
  starts_.Insert(begin);
}

void ShadowMemory::Erase(Address begin) {
  if (first_byte_intervals_ != 0 && InFirstByteForm(*intervals_.Find(begin))) --first_byte_intervals_;
  intervals_.Erase(begin);
  starts_.Erase(begin);
}

void ShadowMemory::SplitAt(Address begin, Address at) {
  // Precondition: begin < at < end of the interval at `begin`.
  ShadowInterval* iv = intervals_.Find(begin);
  ShadowInterval tail = *iv;
  iv->end = at;
  // In first-byte form, all past `at` is the guessed rest; a first byte
  // alone is the access certain.
  if (InFirstByteForm(*iv)) [[unlikely]] {
    TakePart(&tail, TailPart);
    if (at == begin + 1) {
      TakePart(iv, HeadPart);
      --first_byte_intervals_;
    }
  }
  Insert(at, std::move(tail));
}

void ShadowMemory::Overlapping(Address addr, Address end, std::vector<Address>* out) const {
  out->clear();
  auto it = starts_.LowerBound(addr);
  if (it != starts_.begin()) {
    auto prev = it;
    --prev;
    if (intervals_.Find(*prev)->end > addr) it = prev;
  }
  for (; it != starts_.end() && *it < end; ++it) out->push_back(*it);
}

void ShadowMemory::Carve(Address addr, Address end) {
  // Split the interval that straddles `addr`, if any.
  auto it = starts_.LowerBound(addr);
  if (it != starts_.begin()) {
    const Address prev = *--it;
    if (intervals_.Find(prev)->end > addr) SplitAt(prev, addr);
  }
  // Walk [addr, end), filling gaps and splitting the interval that straddles `end`.
  covering_.clear();
  Address cursor = addr;
  while (cursor < end) {
    it = starts_.LowerBound(cursor);
    if (it == starts_.end() || *it > cursor) {
      ShadowInterval fresh;
      fresh.end = (it == starts_.end()) ? end : std::min(end, *it);
      Insert(cursor, std::move(fresh));
    } else if (intervals_.Find(cursor)->end > end) {
      SplitAt(cursor, end);
    }
    covering_.push_back(cursor);
    cursor = intervals_.Find(cursor)->end;
  }
}

void ShadowMemory::MergeAround(Address addr, Address end) {
  auto it = starts_.LowerBound(addr);
  if (it == starts_.end() && it == starts_.begin()) return;
  if (it != starts_.begin()) --it;
  while (true) {
    const Address begin = *it;
    auto after = it;
    if (++after == starts_.end() || *after > end) break;
    const Address next = *after;
    ShadowInterval* a = intervals_.Find(begin);
    const ShadowInterval* b = intervals_.Find(next);
    if (a->end == next && a->write.SameAs(b->write) && a->reads.SameAs(b->reads)) {
      a->end = b->end;
      Erase(next);                     // may move slots: `a` is not used after this
      it = starts_.LowerBound(begin);  // and invalidates the set's iterators
    } else {
      it = after;
    }
  }
}

void ShadowMemory::Replace(Address addr, Address end, const ShadowAccess& write) {
  Carve(addr, end);  // intervals now tile [addr, end), the first one starting at addr
  for (size_t i = 1; i < covering_.size(); ++i) Erase(covering_[i]);
  ShadowInterval& iv = *intervals_.Find(addr);  // found after the erases: they move slots
  if (InFirstByteForm(iv)) --first_byte_intervals_;
  iv.end = end;
  iv.write = write;
  iv.reads.clear();
}

void ShadowMemory::Reset(Address addr, uint64_t size, const ShadowAccess& marker) {
  if (size == 0) return;
  const Address end = addr + size;
  if (!marker.valid()) {
    Carve(addr, end);
    for (Address begin : covering_) Erase(begin);
    return;
  }
  Replace(addr, end, marker);
  MergeAround(addr, end);
}

void ShadowMemory::Fresh(Address addr, uint64_t size) {
  if (size == 0) return;
  const Address end = addr + size;
  // Memory new to the shadow (no interval overlaps it) is the common case:
  // one descent of the ordered starts and one insert, where Replace's carve
  // descends twice more and looks up the previous interval again. Past the
  // end of the last interval (intervals are disjoint, so it ends last; rising
  // addresses, as allocators hand them out at start) not even the descent.
  const bool past_last = starts_.empty() || intervals_.Find(starts_.back())->end <= addr;
  auto next = past_last ? starts_.end() : starts_.LowerBound(addr);
  const bool clear_after = next == starts_.end() || *next >= end;
  auto prev = next;
  const bool clear_before = past_last || next == starts_.begin() || intervals_.Find(*--prev)->end <= addr;
  if (clear_after && clear_before) {
    starts_.Insert(addr);
    intervals_.Set(addr, ShadowInterval{end, ShadowAccess{}, ReadSet{}});
    return;
  }
  Replace(addr, end, ShadowAccess{});
}

size_t ShadowMemory::HeapBytes() const {
  size_t bytes = intervals_.HeapBytes() + starts_.HeapBytes() + memory::Buffer(covering_);
  intervals_.ForEachValue([&bytes](const ShadowInterval& iv) { bytes += iv.reads.HeapBytes(); });
  return bytes;
}

void ShadowMemory::ForgetFrees(Address addr, uint64_t size) {
  if (size == 0) return;
  const Address end = addr + size;
  Overlapping(addr, end, &covering_);
  bool freed = false;
  for (Address begin : covering_) freed = freed || intervals_.Find(begin)->write.kind == ShadowKind::kFree;
  if (!freed) return;  // the common case: looked at, nothing changed
  Carve(addr, end);
  for (Address begin : std::vector<Address>(covering_))
    if (intervals_.Find(begin)->write.kind == ShadowKind::kFree) Erase(begin);
}

}  // namespace streamcheck
