#include "tracer/kernel_arguments.h"

#include <algorithm>
#include <tuple>

namespace streamcheck::tracer {

AccessMode MergeModes(AccessMode a, AccessMode b) {
  if (a == b) return a;
  if (a == AccessMode::kUnknown || b == AccessMode::kUnknown) return AccessMode::kUnknown;
  return AccessMode::kReadWrite;
}

void AccessesOfPointers(const std::vector<std::pair<Address, AccessMode>>& pointers, AllocationBounds& bounds,
                        std::vector<MemoryAccess>* out) {
  // Launches of PyTorch's _foreach kernels carry hundreds of pointers: find
  // repeated ranges by sorting, not by comparing every pair. The first
  // occurrence of each range keeps its place.
  const std::vector<MemoryAccess> extents = bounds.LaunchExtents(pointers);
  std::vector<uint32_t> order(extents.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  auto key = [&](uint32_t i) { return std::tie(extents[i].addr, extents[i].size, i); };
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
  std::vector<bool> keep(extents.size(), true);
  std::vector<AccessMode> mode(extents.size());
  for (size_t k = 0; k < order.size();) {
    const MemoryAccess& first = extents[order[k]];
    AccessMode merged = first.mode;
    size_t end = k + 1;
    for (; end < order.size() && extents[order[end]].addr == first.addr && extents[order[end]].size == first.size; ++end) {
      merged = MergeModes(merged, extents[order[end]].mode);
      keep[order[end]] = false;
    }
    mode[order[k]] = merged;
    k = end;
  }
  for (uint32_t i = 0; i < extents.size(); ++i)
    if (keep[i]) out->push_back({extents[i].addr, extents[i].size, mode[i]});
}

}  // namespace streamcheck::tracer
