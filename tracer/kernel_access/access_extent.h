// The access-range policy: which bytes a kernel touches through a pointer
// argument. The tracer cannot see the kernel's indexing, so it bounds each
// pointer by what it knows of the allocation the pointer falls in:
//   * a pointer covers up to the next boundary known inside its allocation
//     (another pointer argument seen so far, or the bounds of a copy or
//     memset into it);
//   * with no boundary after it, a pointer to the start of an allocation
//     covers the whole allocation (a cudaMalloc'd buffer used whole, the
//     common case) and a pointer into the middle only its first byte.
//   * within one launch, a pointer with no known bound takes the extent of a
//     sibling argument that has one (elementwise kernels: `scale(in + off,
//     out + off)` where the copy into `in` bounded it), clamped to its own
//     allocation and next boundary.
// Interior pointers so never overlap disjoint slices of one allocation handed
// to different streams (per-stream chunks, tensors sub-allocated from one
// cudaMalloc segment): a race is reported only where the slices really meet.
// Where the policy guesses short, a race can be missed; it never invents one
// between slices it knows to be disjoint. Each extent is marked guessed past
// its first byte (MemoryAccess::certainty), and wholly guessed for a pointer
// found inside a by-value struct: a race met only in guessed bytes is a
// possible one, a warning that `--precise` settles (docs/PRECISE.md).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/ids.h"
#include "runtime/trace_record.h"

namespace streamcheck::tracer {

class AllocationBounds {
 public:
  struct Allocation {
    uint64_t size;
    MemoryKind kind;
    std::set<Address> boundaries;  // interior addresses known to start or end something
    bool pooled = false;           // a caching allocator's segment: only its live blocks count
  };
  using Entry = std::pair<const Address, Allocation>;
  // A launch's pointer argument and the pool block or allocation holding it
  // (looked up once: a launch passes each pointer through every step below).
  struct Pointer {
    Address addr;
    AccessMode mode;
    AccessCertainty certainty;  // of its first byte: kFirstByte, or kNone inside a struct
    Entry* holder;
  };

  void Add(Address base, uint64_t size, MemoryKind kind);
  void Remove(Address base);
  // A caching allocator's block inside an allocation (a PyTorch tensor's
  // storage): pointers into it are bounded by the block, not its segment.
  // Once a segment holds blocks, a word pointing into it outside every live
  // block is no tensor's pointer (a stale or unused argument) and is ignored.
  void AddPoolBlock(Address base, uint64_t size);
  void RemovePoolBlock(Address base);
  bool HasPoolBlock(Address base) const { return blocks_.count(base) != 0; }
  // Records where something starts inside an allocation (pointer argument,
  // start of a copy or memset).
  void NoteBoundary(Address addr);
  // Records where a copy or memset ends: inside its allocation or at its end.
  void NoteRangeEnd(Address end);
  // The bytes a kernel may touch through pointer value `p`; size 0 when `p`
  // is not inside a known allocation. *bounded tells whether a known boundary
  // (rather than the allocation's end or the first-byte default) ends it.
  MemoryAccess ExtentOf(Address p, AccessMode mode, bool* bounded = nullptr) const;
  // Extents of one launch's pointer arguments, in order, with the sibling
  // rule applied; replaces *out.
  void LaunchExtents(const std::vector<Pointer>& pointers, std::vector<MemoryAccess>* out);
  // The pool block or allocation holding p, or null. Most words of a
  // kernel's struct parameters are sizes, strides and scalars: the span of
  // all allocations rejects them before any lookup.
  Entry* Holder(Address p);
  bool Contains(Address p) const { return p >= low_ && p < high_ && Find(p) != nullptr; }
  // Appends the parts of `a` that lie in known memory (a live pool block,
  // or an allocation that is no caching allocator's segment): what a kernel
  // observed on the device touches beside them (the driver's printf buffer,
  // a module's globals) is no memory the program's calls can race on.
  void ClipToKnown(const MemoryAccess& a, std::vector<MemoryAccess>* out) const;

 private:
  using Table = std::map<Address, Allocation>;
  static const Entry* FindIn(const Table& table, Address p);
  static MemoryAccess ExtentIn(const Entry& holder, Address p, AccessMode mode, bool* bounded,
                               AccessCertainty certainty = AccessCertainty::kFirstByte);
  // The pool block holding p, else the allocation holding p.
  const Entry* Find(Address p) const;
  Entry* Find(Address p);
  Table by_base_;
  Table blocks_;
  // The entries of both tables by base address (entries never move).
  std::unordered_map<Address, Entry*> allocation_at_, block_at_;
  // Nodes of freed blocks, reused by the next ones (no allocation per block).
  std::vector<Table::node_type> spare_blocks_;
  std::vector<std::unordered_map<Address, Entry*>::node_type> spare_block_at_;
  Address low_ = ~Address{0}, high_ = 0;  // spans every allocation ever added (never shrinks)
  std::vector<uint8_t> bounded_;          // LaunchExtents' scratch, kept to spare an allocation per launch
};

}  // namespace streamcheck::tracer
