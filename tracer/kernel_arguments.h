// Which memory a kernel launch touches, from its argument bytes: every
// pointer-sized word of every parameter (plain pointers and pointers inside
// by-value structs) that falls inside a live allocation becomes an access,
// bounded by the access-range policy (access_extent.h). No CUDA here, so it is
// unit-tested without a GPU; kernel_launches.cpp supplies the bytes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
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

// The accesses of one kernel's last few launches, by the bytes of their
// arguments. A loop that launches a kernel on the same buffers finds them
// here instead of matching every word against the allocations again (most
// of a launch's cost to the tracer). An entry counts only while the
// allocation table is as it was when the entry was made: matching reads
// nothing else, so it would give the same accesses. Entries are made only
// while the table stays unchanged from one launch of the kernel to the next.
class RecentArguments {
 public:
  // MatchPointerArguments, or its answer for these argument bytes before.
  template <typename ValueOf>
  void Match(const std::vector<ParamSlot>& params, ValueOf&& value_of, AllocationBounds& bounds,
             std::vector<MemoryAccess>* out) {
    const uint64_t generation = bounds.generation();
    for (const Entry& e : entries_)
      if (e.generation == generation && SameArguments(params, value_of, e.bytes)) {
        out->assign(e.accesses.begin(), e.accesses.end());
        ++hits_;
        return;
      }
    MatchPointerArguments(params, value_of, bounds, out);
    // Where the table changed since this kernel's last launch (a caching
    // allocator hands out and takes back blocks around every op), an entry
    // would not outlive the next change: remembering it would cost a copy
    // of the arguments every launch and save nothing.
    const bool table_settled = generation == generation_at_last_launch_;
    generation_at_last_launch_ = bounds.generation();
    if (!table_settled) return;
    Entry& e = entries_[next_++ % kEntries];
    e.generation = bounds.generation();  // matching may have added boundaries
    e.bytes.clear();
    for (size_t i = 0; i < params.size(); ++i) {
      const char* value = value_of(i);
      e.bytes.push_back(value != nullptr);
      if (value != nullptr) e.bytes.append(value, params[i].size);
    }
    e.accesses.assign(out->begin(), out->end());
  }
  uint64_t hits() const { return hits_; }

 private:
  // Whether the arguments are those `bytes` were made of (each parameter: a
  // byte saying whether its value was there, then the value).
  template <typename ValueOf>
  static bool SameArguments(const std::vector<ParamSlot>& params, ValueOf& value_of, const std::string& bytes) {
    size_t at = 0;
    for (size_t i = 0; i < params.size(); ++i) {
      const char* value = value_of(i);
      const size_t size = value != nullptr ? params[i].size : 0;
      if (at + 1 + size > bytes.size() || bytes[at] != (value != nullptr)) return false;
      if (size == sizeof(uint64_t)) {  // most parameters: one word, compared in line
        uint64_t a, b;
        std::memcpy(&a, value, sizeof a);
        std::memcpy(&b, bytes.data() + at + 1, sizeof b);
        if (a != b) return false;
      } else if (size != 0 && std::memcmp(value, bytes.data() + at + 1, size) != 0) {
        return false;
      }
      at += 1 + size;
    }
    return at == bytes.size();
  }
  struct Entry {
    uint64_t generation = 0;  // 0: empty (a table's generation never is)
    std::string bytes;
    std::vector<MemoryAccess> accesses;
  };
  static constexpr size_t kEntries = 4;
  std::array<Entry, kEntries> entries_;
  size_t next_ = 0;
  uint64_t generation_at_last_launch_ = 0;
  uint64_t hits_ = 0;
};

}  // namespace streamcheck::tracer
