#include "tracer/kernel_arguments.h"

namespace streamcheck::tracer {

AccessMode MergeModes(AccessMode a, AccessMode b) {
  if (a == b) return a;
  if (a == AccessMode::kUnknown || b == AccessMode::kUnknown) return AccessMode::kUnknown;
  return AccessMode::kReadWrite;
}

void AccessesOfPointers(const std::vector<std::pair<Address, AccessMode>>& pointers, AllocationBounds& bounds,
                        std::vector<MemoryAccess>* out) {
  for (const MemoryAccess& a : bounds.LaunchExtents(pointers)) {
    bool merged = false;
    for (MemoryAccess& existing : *out) {
      if (existing.addr == a.addr && existing.size == a.size) {
        existing.mode = MergeModes(existing.mode, a.mode);
        merged = true;
      }
    }
    if (!merged) out->push_back(a);
  }
}

}  // namespace streamcheck::tracer
