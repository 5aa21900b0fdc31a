#include "tracer/access_extent.h"

#include <algorithm>
#include <utility>

namespace streamcheck::tracer {

void AllocationBounds::Add(Address base, uint64_t size, MemoryKind kind) {
  by_base_[base] = Allocation{size, kind, {}, false};
  low_ = std::min(low_, base);
  high_ = std::max(high_, base + size);
}

void AllocationBounds::Remove(Address base) { by_base_.erase(base); }

void AllocationBounds::AddPoolBlock(Address base, uint64_t size) {
  blocks_[base] = Allocation{size, MemoryKind::kDevice, {}, false};
  // Blocks of segments the tracer did not see allocated (expandable segments map memory with cuMemMap).
  low_ = std::min(low_, base);
  high_ = std::max(high_, base + size);
  if (auto* segment = const_cast<Table::value_type*>(FindIn(by_base_, base))) segment->second.pooled = true;
}

void AllocationBounds::RemovePoolBlock(Address base) { blocks_.erase(base); }

const AllocationBounds::Table::value_type* AllocationBounds::FindIn(const Table& table, Address p) {
  auto it = table.upper_bound(p);
  if (it == table.begin()) return nullptr;
  --it;
  return p < it->first + it->second.size ? &*it : nullptr;
}

const AllocationBounds::Table::value_type* AllocationBounds::Find(Address p) const {
  if (const auto* block = blocks_.empty() ? nullptr : FindIn(blocks_, p)) return block;
  const auto* allocation = FindIn(by_base_, p);
  return allocation != nullptr && !allocation->second.pooled ? allocation : nullptr;
}

std::pair<const Address, AllocationBounds::Allocation>* AllocationBounds::Find(Address p) {
  return const_cast<std::pair<const Address, Allocation>*>(std::as_const(*this).Find(p));
}

void AllocationBounds::NoteBoundary(Address addr) {
  auto* a = Find(addr);
  if (a && addr != a->first) a->second.boundaries.insert(addr);
}

void AllocationBounds::NoteRangeEnd(Address end) {
  // The range ends inside the allocation holding its last byte; its end may
  // be that allocation's end (a copy filling the last chunk), which bounds a
  // pointer to the last chunk. It is never taken as the start of the next
  // allocation, which may sit right there.
  auto* a = end != 0 ? Find(end - 1) : nullptr;
  if (a) a->second.boundaries.insert(end);
}

MemoryAccess AllocationBounds::ExtentOf(Address p, AccessMode mode, bool* bounded) const {
  if (bounded) *bounded = false;
  const auto* a = Find(p);
  if (a == nullptr) return {p, 0, mode};
  const Address base = a->first, end = base + a->second.size;
  auto next = a->second.boundaries.upper_bound(p);
  if (next != a->second.boundaries.end()) {
    if (bounded) *bounded = true;
    return {p, std::min(*next, end) - p, mode};
  }
  return {p, p == base ? a->second.size : 1, mode};
}

std::vector<MemoryAccess> AllocationBounds::LaunchExtents(
    const std::vector<std::pair<Address, AccessMode>>& pointers) {
  // Sibling arguments bound each other (`in + off` and `in + off + chunk`).
  for (const auto& [p, mode] : pointers) NoteBoundary(p);
  std::vector<MemoryAccess> out;
  std::vector<bool> bounded(pointers.size());
  uint64_t sibling = 0;  // smallest bounded extent among the arguments
  for (size_t i = 0; i < pointers.size(); ++i) {
    bool b = false;
    out.push_back(ExtentOf(pointers[i].first, pointers[i].second, &b));
    bounded[i] = b;
    if (b && (sibling == 0 || out.back().size < sibling)) sibling = out.back().size;
  }
  if (sibling == 0) return out;
  for (size_t i = 0; i < out.size(); ++i) {
    if (bounded[i]) continue;
    const auto* a = Find(out[i].addr);
    const uint64_t room = a->first + a->second.size - out[i].addr;
    out[i].size = std::min(sibling, room);
  }
  return out;
}

}  // namespace streamcheck::tracer
