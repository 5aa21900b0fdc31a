#include "runtime/allocation_table.h"

#include <algorithm>
#include <iterator>

namespace streamcheck {

void AllocationTable::Add(const Allocation& allocation) {
  const Address end = allocation.base + allocation.size;
  // Allocators hand out rising addresses while a program starts (a model's
  // parameters): past the last allocation (entries are disjoint, so it ends
  // last), append without a descent, a walk of ~17 levels of a tree of 100k
  // allocations that missed the cache at most of them.
  const auto last = by_base_.rbegin();
  if (last == by_base_.rend() ||
      (last->first < allocation.base && last->second.base + last->second.size <= allocation.base)) {
    by_base_.emplace_hint(by_base_.end(), allocation.base, allocation);
    return;
  }
  auto it = by_base_.lower_bound(allocation.base);
  if (it != by_base_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.base + prev->second.size > allocation.base) it = prev;
  }
  while (it != by_base_.end() && it->first < end) it = by_base_.erase(it);
  by_base_.emplace_hint(it, allocation.base, allocation);  // `it` follows base: no second descent
}

bool AllocationTable::Remove(Address base, Allocation* removed) {
  auto it = by_base_.find(base);
  if (it == by_base_.end()) return false;
  if (removed) *removed = it->second;
  by_base_.erase(it);
  return true;
}

const Allocation* AllocationTable::Find(Address addr) const {
  auto it = by_base_.upper_bound(addr);
  if (it == by_base_.begin()) return nullptr;
  --it;
  const Allocation& a = it->second;
  return addr < a.base + a.size || (a.size == 0 && addr == a.base) ? &a : nullptr;
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
