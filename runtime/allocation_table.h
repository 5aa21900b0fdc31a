// Live allocations made through CUDA: where memory lives (device, pinned,
// managed, ...) decides how copies synchronize; where it was allocated goes
// into findings.
#pragma once

#include <cstdint>
#include <map>

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

class AllocationTable {
 public:
  // Replaces any allocation overlapping [base, base+size).
  void Add(const Allocation& allocation);
  // Removes the allocation starting at `base`; false when there is none.
  bool Remove(Address base, Allocation* removed);
  // The allocation containing `addr`, or nullptr.
  const Allocation* Find(Address addr) const;
  // Memory kind of `addr`: pageable host memory when CUDA did not allocate it.
  MemoryKind KindOf(Address addr) const {
    const Allocation* a = Find(addr);
    return a ? a->kind : MemoryKind::kPageableHost;
  }
  // Removes every allocation of `device` (cudaDeviceReset); calls f(alloc) for each.
  template <typename F>
  void RemoveDevice(DeviceId device, F f) {
    for (auto it = by_base_.begin(); it != by_base_.end();) {
      if (it->second.device == device && !IsHostMemory(it->second.kind)) {
        f(it->second);
        it = by_base_.erase(it);
      } else {
        ++it;
      }
    }
  }
  size_t size() const { return by_base_.size(); }
  size_t HeapBytes() const { return memory::TreeMap(by_base_); }

 private:
  std::map<Address, Allocation> by_base_;
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
