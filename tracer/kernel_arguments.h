// Which memory a kernel launch touches, from its argument bytes: every
// pointer-sized word of every parameter (plain pointers and pointers inside
// by-value structs) that falls inside a live allocation becomes an access,
// bounded by the access-range policy (access_extent.h). No CUDA here, so it is
// unit-tested without a GPU; kernel_launches.cpp supplies the bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/trace_record.h"
#include "tracer/access_extent.h"

namespace streamcheck::tracer {

struct ParamSlot {
  size_t offset = 0;
  size_t size = 0;
  // What the signature says about memory behind this parameter when it is a
  // plain pointer; pointers found inside a struct are always kUnknown.
  AccessMode mode = AccessMode::kUnknown;
};

// The same range reached through two parameters: read + write is a write
// that also reads; anything with an unknown side stays unknown.
AccessMode MergeModes(AccessMode a, AccessMode b);

// Turns pointer candidates into accesses (extents by the policy, one access
// per distinct range, modes merged).
void AccessesOfPointers(const std::vector<AllocationBounds::Pointer>& pointers, AllocationBounds& bounds,
                        std::vector<MemoryAccess>* out);

// value_of(i) returns the bytes of parameter i (params[i].size of them) or
// null when unavailable.
template <typename ValueOf>
void MatchPointerArguments(const std::vector<ParamSlot>& params, ValueOf&& value_of, AllocationBounds& bounds,
                           std::vector<MemoryAccess>* out) {
  out->clear();
  // Every launch passes through here: the candidates' vector keeps its capacity.
  thread_local std::vector<AllocationBounds::Pointer> pointers;
  pointers.clear();
  for (size_t i = 0; i < params.size(); ++i) {
    const char* value = value_of(i);
    if (value == nullptr) continue;
    const size_t size = params[i].size;
    // Pointers inside structs sit at 8-byte offsets of the parameter.
    for (size_t off = 0; off + sizeof(uint64_t) <= size; off += sizeof(uint64_t)) {
      uint64_t word;
      std::memcpy(&word, value + off, sizeof word);
      if (word == 0) continue;
      if (AllocationBounds::Entry* holder = bounds.Holder(word))
        pointers.push_back({word, size == sizeof(uint64_t) ? params[i].mode : AccessMode::kUnknown, holder});
    }
  }
  if (!pointers.empty()) AccessesOfPointers(pointers, bounds, out);
}

}  // namespace streamcheck::tracer
