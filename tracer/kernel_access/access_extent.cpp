#include "tracer/kernel_access/access_extent.h"

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

namespace {

// A caching allocator hands out and takes back blocks around every op: the
// tables' nodes of blocks given back are kept for the next blocks (at most
// kSpareNodes each) instead of freed and allocated again.
constexpr size_t kSpareNodes = 64;

// map[key] = value, in a spare node where the key is new.
template <typename Map>
typename Map::iterator AssignReusingNode(Map& map, std::vector<typename Map::node_type>& spares, Address key,
                                         const typename Map::mapped_type& value) {
  if (auto it = map.find(key); it != map.end()) {
    it->second = value;
    return it;
  }
  if (spares.empty()) return map.emplace(key, value).first;
  typename Map::node_type node = std::move(spares.back());
  spares.pop_back();
  node.key() = key;
  node.mapped() = value;
  return map.insert(std::move(node)).position;
}

template <typename Map>
void EraseKeepingNode(Map& map, std::vector<typename Map::node_type>& spares, Address key) {
  if (auto node = map.extract(key); !node.empty() && spares.size() < kSpareNodes) spares.push_back(std::move(node));
}

}  // namespace

void AllocationBounds::AddPoolBlock(Address base, uint64_t size) {
  const auto it = AssignReusingNode(blocks_, spare_blocks_, base, Allocation{size, MemoryKind::kDevice, {}, false});
  if (size > 0) AssignReusingNode(block_at_, spare_block_at_, base, &*it);
  else block_at_.erase(base);
  // Blocks of segments the tracer did not see allocated (expandable segments map memory with cuMemMap).
  low_ = std::min(low_, base);
  high_ = std::max(high_, base + size);
  if (auto* segment = const_cast<Entry*>(FindIn(by_base_, base))) segment->second.pooled = true;
}

void AllocationBounds::RemovePoolBlock(Address base) {
  EraseKeepingNode(blocks_, spare_blocks_, base);
  EraseKeepingNode(block_at_, spare_block_at_, base);
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

MemoryAccess AllocationBounds::ExtentIn(const Entry& holder, Address p, AccessMode mode, bool* bounded,
                                        AccessCertainty certainty) {
  const Address base = holder.first, end = base + holder.second.size;
  const std::set<Address>& boundaries = holder.second.boundaries;
  auto next = boundaries.empty() ? boundaries.end() : boundaries.upper_bound(p);
  // Every extent but its first byte is this policy's guess.
  if (next != boundaries.end()) {
    *bounded = true;
    return {p, std::min(*next, end) - p, mode, certainty};
  }
  *bounded = false;
  return {p, p == base ? holder.second.size : 1, mode, certainty};
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
    out->push_back(ExtentIn(*pointers[i].holder, pointers[i].addr, pointers[i].mode, &b, pointers[i].certainty));
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

void AllocationBounds::ClipToKnown(const MemoryAccess& a, std::vector<MemoryAccess>* out) const {
  const Address begin = a.addr, end = a.addr + a.size;
  auto clip = [&](const Table& table, bool skip_pooled) {
    auto it = table.upper_bound(begin);
    if (it != table.begin()) --it;
    for (; it != table.end() && it->first < end; ++it) {
      if (skip_pooled && it->second.pooled) continue;  // its blocks count instead
      const Address b = std::max(begin, it->first), e = std::min(end, it->first + it->second.size);
      if (b >= e) continue;
      MemoryAccess part = a;
      part.addr = b;
      part.size = e - b;
      out->push_back(part);
    }
  };
  clip(blocks_, false);
  clip(by_base_, true);
}

}  // namespace streamcheck::tracer
