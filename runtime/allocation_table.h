// Live allocations made through CUDA: where memory lives (device, pinned,
// managed, ...) decides how copies synchronize; where it was allocated goes
// into findings.
#pragma once

#include <cstdint>
#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "runtime/ids.h"
#include "runtime/memory_estimate.h"
#include "runtime/trace_record.h"
#include "runtime/vector_clock.h"

namespace streamcheck {

struct Allocation {
  Address base = 0;
  uint64_t size = 0;
  MemoryKind kind = MemoryKind::kDevice;
  DeviceId device = 0;
  uint32_t site = 0;  // SiteTable id of the allocating call
  Lane stream_lane = kNoLane;  // allocating stream for stream-ordered allocations
};

// By base address, in sorted leaves of up to kLeafEntries found through the
// sorted first bases of the leaves (as AddressSet keeps the shadow's
// starts): a std::map cost a malloc, a free and a rebalance per caching-
// allocator block handed out and given back, and a walk down ~10 levels of
// nodes per lookup, 6-15% of a PyTorch trace's replay. Entries are disjoint:
// no base lies inside another entry. Entries move on Add and Remove, so
// pointers from Find stay valid only until the next change.
class AllocationTable {
  static constexpr uint32_t kLeafEntries = 32;  // 1 KiB of 32-byte entries
  struct Leaf {
    uint32_t size = 0;
    Allocation entries[kLeafEntries];
  };

 public:
  // Replaces any allocation overlapping [base, base+size). One of no size at
  // the base of one that stays is not added (that entry keeps the base).
  void Add(const Allocation& allocation);
  // Removes the allocation starting at `base`; false when there is none.
  bool Remove(Address base, Allocation* removed);
  // The allocation containing `addr`, or nullptr.
  const Allocation* Find(Address addr) const {
    const Allocation* a = Floor(addr);
    return a != nullptr && (addr < a->base + a->size || (a->size == 0 && addr == a->base)) ? a : nullptr;
  }
  // Memory kind of `addr`: pageable host memory when CUDA did not allocate it.
  MemoryKind KindOf(Address addr) const {
    const Allocation* a = Find(addr);
    return a ? a->kind : MemoryKind::kPageableHost;
  }
  // Removes every allocation of `device` (cudaDeviceReset); calls f(alloc) for each, by base.
  template <typename F>
  void RemoveDevice(DeviceId device, F f) {
    std::vector<Allocation> kept;
    kept.reserve(size_);
    for (const auto& leaf : leaves_)
      for (uint32_t i = 0; i < leaf->size; ++i) {
        const Allocation& a = leaf->entries[i];
        if (a.device == device && !IsHostMemory(a.kind)) f(a);
        else kept.push_back(a);
      }
    Clear();
    for (const Allocation& a : kept) Append(a);
  }
  size_t size() const { return size_; }
  size_t HeapBytes() const {
    return leaves_.size() * memory::Chunk(sizeof(Leaf)) + memory::Buffer(leaves_) + memory::Buffer(firsts_);
  }

 private:
  // The entry with the greatest base <= `addr`, or nullptr.
  const Allocation* Floor(Address addr) const {
    const size_t leaf = LeafFor(addr);
    if (leaf == kNone) return nullptr;
    const Leaf& l = *leaves_[leaf];
    const Allocation* after = std::upper_bound(l.entries, l.entries + l.size, addr,
                                               [](Address x, const Allocation& e) { return x < e.base; });
    return after - 1;  // the leaf's first base is <= addr
  }
  static constexpr size_t kNone = ~size_t{0};
  // The last leaf whose first base is <= `addr`, or kNone.
  size_t LeafFor(Address addr) const {
    const size_t after = size_t(std::upper_bound(firsts_.begin(), firsts_.end(), addr) - firsts_.begin());
    return after == 0 ? kNone : after - 1;
  }
  // Past every entry (bases rise, as allocators hand them out at start): at the end of the last leaf.
  void Append(const Allocation& allocation);
  void Insert(const Allocation& allocation);
  // At `pos` of `leaf` (where its base keeps the order), splitting a full leaf.
  void InsertAt(size_t leaf, uint32_t pos, const Allocation& allocation);
  void EraseAt(size_t leaf, uint32_t pos);
  void Clear() {
    leaves_.clear();
    firsts_.clear();
    size_ = 0;
  }

  std::vector<std::unique_ptr<Leaf>> leaves_;
  std::vector<Address> firsts_;  // each leaf's first base, increasing
  size_t size_ = 0;
};

// A set of address ranges, merged where they touch: memory set apart from
// the allocations that come and go inside it (what CUDA graphs were captured
// on, engine_memory.cpp).
class AddressRanges {
 public:
  void Add(Address begin, uint64_t size);
  bool Overlaps(Address begin, uint64_t size) const;
  // Takes [begin, begin+size) out (cudaFree of the segment holding them).
  void Remove(Address begin, uint64_t size);
  bool empty() const { return end_by_begin_.empty(); }
  size_t HeapBytes() const { return memory::TreeMap(end_by_begin_); }

 private:
  std::map<Address, Address> end_by_begin_;  // disjoint, not touching
};

}  // namespace streamcheck
