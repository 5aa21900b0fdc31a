#include "tracer/access_extent.h"

#include <algorithm>
#include <utility>

namespace streamcheck::tracer {

void AllocationBounds::Add(Address base, uint64_t size, MemoryKind kind) {
  auto [it, inserted] = by_base_.insert_or_assign(base, Allocation{size, kind, {}, false});
  if (size > 0) allocation_at_[base] = &*it;
  else allocation_at_.erase(base);
  low_ = std::min(low_, base);
  high_ = std::max(high_, base + size);
}

void AllocationBounds::Remove(Address base) {
  by_base_.erase(base);
  allocation_at_.erase(base);
}

void AllocationBounds::AddPoolBlock(Address base, uint64_t size) {
  const Allocation block{size, MemoryKind::kDevice, {}, false};
  auto it = blocks_.find(base);
  if (it != blocks_.end()) {
    it->second = block;
  } else if (!spare_blocks_.empty()) {
    Table::node_type node = std::move(spare_blocks_.back());
    spare_blocks_.pop_back();
    node.key() = base;
    node.mapped() = block;
    it = blocks_.insert(std::move(node)).position;
  } else {
    it = blocks_.emplace(base, block).first;
  }
  if (size == 0) {
    block_at_.erase(base);
  } else if (!spare_block_at_.empty()) {
    auto node = std::move(spare_block_at_.back());
    spare_block_at_.pop_back();
    node.key() = base;
    node.mapped() = &*it;
    if (auto result = block_at_.insert(std::move(node)); !result.inserted) result.position->second = &*it;
  } else {
    block_at_[base] = &*it;
  }
  // Blocks of segments the tracer did not see allocated (expandable segments map memory with cuMemMap).
  low_ = std::min(low_, base);
  high_ = std::max(high_, base + size);
  if (auto* segment = const_cast<Entry*>(FindIn(by_base_, base))) segment->second.pooled = true;
}

void AllocationBounds::RemovePoolBlock(Address base) {
  // The nodes are kept for the next blocks: a caching allocator hands out
  // and takes back blocks around every op.
  constexpr size_t kSpareNodes = 64;
  if (auto node = blocks_.extract(base); !node.empty() && spare_blocks_.size() < kSpareNodes)
    spare_blocks_.push_back(std::move(node));
  if (auto node = block_at_.extract(base); !node.empty() && spare_block_at_.size() < kSpareNodes)
    spare_block_at_.push_back(std::move(node));
}

AllocationBounds::Entry* AllocationBounds::Holder(Address p) {
  if (p < low_ || p >= high_) return nullptr;
  // Most pointer arguments are a tensor's block or a buffer's base: one hash
  // probe instead of a walk down the trees (cache misses in a program that
  // has just run the driver's launch path). Same answer as Find().
  if (auto it = block_at_.find(p); it != block_at_.end()) return it->second;
  if (blocks_.empty())
    if (auto it = allocation_at_.find(p); it != allocation_at_.end()) return it->second->second.pooled ? nullptr : it->second;
  return Find(p);
}

const AllocationBounds::Entry* AllocationBounds::FindIn(const Table& table, Address p) {
  auto it = table.upper_bound(p);
  if (it == table.begin()) return nullptr;
  --it;
  return p < it->first + it->second.size ? &*it : nullptr;
}

const AllocationBounds::Entry* AllocationBounds::Find(Address p) const {
  if (const auto* block = blocks_.empty() ? nullptr : FindIn(blocks_, p)) return block;
  const auto* allocation = FindIn(by_base_, p);
  return allocation != nullptr && !allocation->second.pooled ? allocation : nullptr;
}

AllocationBounds::Entry* AllocationBounds::Find(Address p) {
  return const_cast<Entry*>(std::as_const(*this).Find(p));
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

MemoryAccess AllocationBounds::ExtentIn(const Entry& holder, Address p, AccessMode mode, bool* bounded) {
  const Address base = holder.first, end = base + holder.second.size;
  const std::set<Address>& boundaries = holder.second.boundaries;
  auto next = boundaries.empty() ? boundaries.end() : boundaries.upper_bound(p);
  if (next != boundaries.end()) {
    *bounded = true;
    return {p, std::min(*next, end) - p, mode};
  }
  *bounded = false;
  return {p, p == base ? holder.second.size : 1, mode};
}

MemoryAccess AllocationBounds::ExtentOf(Address p, AccessMode mode, bool* bounded) const {
  bool ignored = false;
  if (bounded == nullptr) bounded = &ignored;
  *bounded = false;
  const Entry* holder = Find(p);
  return holder == nullptr ? MemoryAccess{p, 0, mode} : ExtentIn(*holder, p, mode, bounded);
}

void AllocationBounds::LaunchExtents(const std::vector<Pointer>& pointers, std::vector<MemoryAccess>* out) {
  // Sibling arguments bound each other (`in + off` and `in + off + chunk`).
  for (const Pointer& p : pointers)
    if (p.addr != p.holder->first) p.holder->second.boundaries.insert(p.addr);
  out->clear();
  bounded_.assign(pointers.size(), 0);
  uint64_t sibling = 0;  // smallest bounded extent among the arguments
  for (size_t i = 0; i < pointers.size(); ++i) {
    bool b = false;
    out->push_back(ExtentIn(*pointers[i].holder, pointers[i].addr, pointers[i].mode, &b));
    bounded_[i] = b;
    if (b && (sibling == 0 || out->back().size < sibling)) sibling = out->back().size;
  }
  if (sibling == 0) return;
  for (size_t i = 0; i < out->size(); ++i) {
    if (bounded_[i]) continue;
    const Entry& holder = *pointers[i].holder;
    const uint64_t room = holder.first + holder.second.size - (*out)[i].addr;
    (*out)[i].size = std::min(sibling, room);
  }
}

}  // namespace streamcheck::tracer
