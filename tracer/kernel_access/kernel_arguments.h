// Which memory a kernel launch touches, from its argument bytes: every
// pointer-sized word of every parameter (plain pointers and pointers inside
// by-value structs) that falls inside a live allocation becomes an access,
// bounded by the access-range policy (access_extent.h). The words are read on
// the program's thread and matched on the analysis worker's. No CUDA here, so
// it is unit-tested without a GPU; kernel_launches.cpp supplies the bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/trace_record.h"
#include "tracer/kernel_access/access_extent.h"

namespace streamcheck::tracer {

struct ParamSlot {
  size_t offset = 0;
  size_t size = 0;
  // What the signature says about memory behind this parameter when it is a
  // plain pointer; pointers found inside a struct are always kUnknown.
  AccessMode mode = AccessMode::kUnknown;
  // A pointer to volatile memory (kernel_signature.h: PointsToVolatile): the
  // kernel's accesses through it are synchronization, and its word is left out.
  bool volatile_pointee = false;
};

// Every address any allocation ever covered lies in [low, high): on the
// program's thread, where the allocation table is not (the analysis worker
// keeps it, record_resolver.h), this tells a word that may be a pointer
// from a size, a stride or a scalar.
class AddressSpan {
 public:
  void Widen(Address base, uint64_t size) {
    if (size == 0) return;
    low_ = base < low_ ? base : low_;
    high_ = base + size > high_ ? base + size : high_;
  }
  bool Holds(Address p) const { return p >= low_ && p < high_; }

 private:
  Address low_ = ~Address{0}, high_ = 0;
};

// A collected word of this size is a pointer to volatile memory: no access,
// but where something starts, which bounds its siblings' extents (a flag in
// a struct whose other fields the kernel writes through other pointers).
constexpr uint64_t kBoundaryWord = 1;

// On the program's thread, while the launch's argument bytes exist: every
// pointer-sized word of every parameter (plain pointers, and pointers inside
// by-value structs at 8-byte offsets) that falls inside `span`, as an access
// of size 0 with the mode the signature gives a plain pointer (kUnknown
// inside a struct) and the certainty of its first byte: a plain pointer's
// is certain, a struct member's not (the kernel may not use it); a pointer
// to volatile memory as a kBoundaryWord. value_of(i) returns the bytes of
// parameter i (params[i].size of them) or null when unavailable.
template <typename ValueOf>
void CollectPointerWords(const std::vector<ParamSlot>& params, ValueOf&& value_of, const AddressSpan& span,
                         std::vector<MemoryAccess>* out) {
  out->clear();
  for (size_t i = 0; i < params.size(); ++i) {
    const char* value = value_of(i);
    if (value == nullptr) continue;
    const size_t size = params[i].size;
    if (params[i].volatile_pointee) {
      uint64_t word;
      if (size == sizeof word && (std::memcpy(&word, value, sizeof word), span.Holds(word)))
        out->push_back({word, kBoundaryWord, AccessMode::kUnknown, AccessCertainty::kNone});
      continue;
    }
    const bool plain = size == sizeof(uint64_t);
    const AccessMode mode = plain ? params[i].mode : AccessMode::kUnknown;
    const AccessCertainty certainty = plain ? AccessCertainty::kFirstByte : AccessCertainty::kNone;
    for (size_t off = 0; off + sizeof(uint64_t) <= size; off += sizeof(uint64_t)) {
      uint64_t word;
      std::memcpy(&word, value + off, sizeof word);
      if (span.Holds(word)) out->push_back({word, 0, mode, certainty});
    }
  }
}

// On the analysis worker, in record order: the words CollectPointerWords
// found that lie in a live allocation become accesses, bounded by the
// access-range policy (one access per distinct range, modes merged);
// kBoundaryWords become boundaries of their allocations first.
void ResolvePointerWords(const std::vector<MemoryAccess>& words, AllocationBounds& bounds,
                         std::vector<MemoryAccess>* out);

// Both steps at once, every word a candidate (tests and benchmarks).
template <typename ValueOf>
void MatchPointerArguments(const std::vector<ParamSlot>& params, ValueOf&& value_of, AllocationBounds& bounds,
                           std::vector<MemoryAccess>* out) {
  AddressSpan everything;
  everything.Widen(1, ~Address{0} - 1);
  std::vector<MemoryAccess> words;
  CollectPointerWords(params, value_of, everything, &words);
  ResolvePointerWords(words, bounds, out);
}

}  // namespace streamcheck::tracer
