#include "runtime/allocation_table.h"

#include <algorithm>
#include <iterator>

namespace streamcheck {

void AllocationTable::Add(const Allocation& allocation) {
  const Address base = allocation.base, end = base + allocation.size;
  // Allocators hand out rising addresses while a program starts (a model's
  // parameters): past the last allocation (entries are disjoint, so it ends
  // last), append without a search.
  if (size_ == 0) return Append(allocation);
  const Leaf& last_leaf = *leaves_.back();
  const Allocation& last = last_leaf.entries[last_leaf.size - 1];
  if (last.base < base && last.base + last.size <= base) return Append(allocation);
  // Where it goes: the common case (a caching allocator's block handed out
  // again) overlaps neither neighbour and is one search.
  size_t leaf = LeafFor(base);
  uint32_t pos = 0;
  if (leaf == kNone) {
    leaf = 0;
  } else {
    const Leaf& l = *leaves_[leaf];
    pos = uint32_t(std::lower_bound(l.entries, l.entries + l.size, base,
                                    [](const Allocation& e, Address x) { return e.base < x; }) -
                   l.entries);
  }
  const Allocation* before = pos > 0 ? &leaves_[leaf]->entries[pos - 1]
                             : leaf > 0 ? &leaves_[leaf - 1]->entries[leaves_[leaf - 1]->size - 1]
                                        : nullptr;
  const Allocation* after = pos < leaves_[leaf]->size ? &leaves_[leaf]->entries[pos]
                            : leaf + 1 < leaves_.size() ? &leaves_[leaf + 1]->entries[0]
                                                        : nullptr;
  const bool before_overlaps = before != nullptr && before->base + before->size > base;
  const bool after_overlaps = after != nullptr && (after->base < end || after->base == base);
  if (!before_overlaps && !after_overlaps) return InsertAt(leaf, pos, allocation);
  // The entry before `base` goes if it reaches past it; so does every entry
  // starting in [base, end). Walked by key: an erase moves entries.
  if (before_overlaps) Remove(before->base, nullptr);
  for (;;) {
    const Allocation* next = Floor(end == base ? base : end - 1);
    if (next == nullptr || next->base < base) break;
    if (next->base == base && allocation.size == 0) return;  // it does not replace the entry at its base
    Remove(next->base, nullptr);
  }
  Insert(allocation);
}

void AllocationTable::Append(const Allocation& allocation) {
  if (leaves_.empty() || leaves_.back()->size == kLeafEntries) {
    leaves_.push_back(std::make_unique<Leaf>());
    firsts_.push_back(allocation.base);
  }
  Leaf& l = *leaves_.back();
  l.entries[l.size++] = allocation;
  ++size_;
}

void AllocationTable::Insert(const Allocation& allocation) {
  size_t leaf = LeafFor(allocation.base);
  if (leaf == kNone) leaf = 0;  // before every entry: the first leaf's front
  if (leaf == leaves_.size()) return Append(allocation);
  const Leaf& l = *leaves_[leaf];
  const Allocation* at = std::upper_bound(l.entries, l.entries + l.size, allocation.base,
                                          [](Address x, const Allocation& e) { return x < e.base; });
  InsertAt(leaf, uint32_t(at - l.entries), allocation);
}

void AllocationTable::InsertAt(size_t leaf, uint32_t pos, const Allocation& allocation) {
  if (leaves_[leaf]->size == kLeafEntries) {  // split in halves
    auto upper = std::make_unique<Leaf>();
    Leaf& lower = *leaves_[leaf];
    upper->size = kLeafEntries / 2;
    std::copy(lower.entries + kLeafEntries / 2, lower.entries + kLeafEntries, upper->entries);
    lower.size = kLeafEntries / 2;
    firsts_.insert(firsts_.begin() + leaf + 1, upper->entries[0].base);
    leaves_.insert(leaves_.begin() + leaf + 1, std::move(upper));
    if (pos > kLeafEntries / 2) {
      ++leaf;
      pos -= kLeafEntries / 2;
    }
  }
  Leaf& l = *leaves_[leaf];
  std::move_backward(l.entries + pos, l.entries + l.size, l.entries + l.size + 1);
  l.entries[pos] = allocation;
  ++l.size;
  if (pos == 0) firsts_[leaf] = allocation.base;
  ++size_;
}

bool AllocationTable::Remove(Address base, Allocation* removed) {
  const size_t leaf = LeafFor(base);
  if (leaf == kNone) return false;
  const Leaf& l = *leaves_[leaf];
  const Allocation* at = std::lower_bound(l.entries, l.entries + l.size, base,
                                          [](const Allocation& e, Address x) { return e.base < x; });
  if (at == l.entries + l.size || at->base != base) return false;
  if (removed) *removed = *at;
  EraseAt(leaf, uint32_t(at - l.entries));
  return true;
}

void AllocationTable::EraseAt(size_t leaf, uint32_t pos) {
  Leaf& l = *leaves_[leaf];
  std::move(l.entries + pos + 1, l.entries + l.size, l.entries + pos);
  --l.size;
  --size_;
  if (l.size == 0) {
    leaves_.erase(leaves_.begin() + leaf);
    firsts_.erase(firsts_.begin() + leaf);
  } else {
    firsts_[leaf] = l.entries[0].base;
  }
}

void AddressRanges::Add(Address begin, uint64_t size) {
  if (size == 0) return;
  Address end = begin + size;
  auto it = end_by_begin_.upper_bound(begin);
  if (it != end_by_begin_.begin() && std::prev(it)->second >= begin) --it;  // the one before touches it
  while (it != end_by_begin_.end() && it->first <= end) {
    begin = std::min(begin, it->first);
    end = std::max(end, it->second);
    it = end_by_begin_.erase(it);
  }
  end_by_begin_.emplace_hint(it, begin, end);
}

bool AddressRanges::Overlaps(Address begin, uint64_t size) const {
  if (size == 0 || end_by_begin_.empty()) return false;
  auto it = end_by_begin_.lower_bound(begin + size);  // the first starting at or past the end
  return it != end_by_begin_.begin() && std::prev(it)->second > begin;
}

void AddressRanges::Remove(Address begin, uint64_t size) {
  if (size == 0) return;
  const Address end = begin + size;
  auto it = end_by_begin_.upper_bound(begin);
  if (it != end_by_begin_.begin() && std::prev(it)->second > begin) --it;
  while (it != end_by_begin_.end() && it->first < end) {
    const Address range_begin = it->first, range_end = it->second;
    it = end_by_begin_.erase(it);
    if (range_begin < begin) end_by_begin_.emplace(range_begin, begin);  // the part before stays
    if (range_end > end) it = end_by_begin_.emplace(end, range_end).first;  // and the part after
  }
}

}  // namespace streamcheck
