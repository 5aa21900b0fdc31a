// Shadow memory: for every byte range that operations touched, who last wrote
// it and who read it since (one read per lane, FastTrack style). Ranges are
// exact: adjacent disjoint slices of one buffer never conflict, partial
// overlaps split intervals at the overlap's bounds. Adjacent intervals with
// equal state are merged again, so memory follows live buffers, not trace length.
//
// Layout: each interval lives in a 64-byte slot of a hash map keyed by its
// start, so the common access (a whole buffer, seen before) costs one cache
// miss; an ordered set of starts serves the rare split, gap and merge.
//
// A kernel pointer's guessed extent is a certain first byte and a guessed
// rest: two intervals by the rules above. They are kept as one, whose
// entries marked ShadowAccess::first_byte stand for the access certain on
// the interval's first byte and guessed past it (shadow_first_byte.cpp), so
// the kernel's next access to the same extent is one lookup. Every
// operation gives exactly the findings and the two-interval history it
// would give on the intervals split: an access's slow path splits the
// first-byte intervals it may look at, works as before, and joins them
// again; carving cuts what such an interval stands for (SplitAt).
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/address_map.h"
#include "runtime/address_set.h"
#include "runtime/read_set.h"
#include "runtime/shadow_access.h"
#include "runtime/trace_record.h"
#include "runtime/vector_clock.h"

namespace streamcheck {

struct ShadowInterval {
  Address end = 0;
  ShadowAccess write;  // the last write, allocation or free
  ReadSet reads;       // reads since that write
};
static_assert(sizeof(ShadowInterval) + sizeof(Address) <= 64, "an interval and its key fill one cache line");

// A pair of accesses with no happens-before edge, over [begin, end).
struct ShadowConflict {
  ShadowAccess earlier;
  Address begin = 0;
  Address end = 0;
};

// How an access is recorded, besides what it is.
struct AccessContext {
  // Host threads have clocks of their own, so two of them may write
  // unordered (a host write then keeps what it replaced).
  bool host_threads_unordered = false;
  // The accesses of the same operation recorded before this one; null: not
  // known. Where none of them touches [addr-1, addr+size] the access is
  // alone: no interval beside it holds anything of the operation, so nothing
  // merges with what it leaves, and an extent seen before is updated in
  // place whether or not it was in first-byte form. Asked only then.
  const MemoryAccess* before = nullptr;
  size_t before_count = 0;
  bool Alone(Address addr, Address end) const {
    if (before == nullptr) return false;
    for (size_t j = 0; j < before_count; ++j)
      if (before[j].addr <= end && addr <= before[j].addr + before[j].size) return false;
    return true;
  }
};

class ShadowMemory {
 public:
  // Checks an access against the history of [addr, addr+size), appends
  // conflicts to `conflicts`, and records the access. `is_host(lane)` tells
  // whether a lane is a host thread (host/host pairs are never reported).
  template <typename IsHost>
  void Access(Address addr, uint64_t size, const ShadowAccess& now, const VectorClock& clock,
              IsHost is_host, std::vector<ShadowConflict>* conflicts, AccessContext context = {});
  // The same for a first-byte access (`now.first_byte`, size > 1): what
  // Access of [addr, addr+1) with HeadPart(now) and then of the rest with
  // TailPart(now) would append and record, in one lookup where the extent
  // was seen before. Returns how many of the conflicts appended are the
  // first byte's (they come first).
  template <typename IsHost>
  size_t AccessFirstByte(Address addr, uint64_t size, const ShadowAccess& now, const VectorClock& clock,
                         IsHost is_host, std::vector<ShadowConflict>* conflicts, AccessContext context = {});

  // Memory-level parallelism for one operation's several accesses: callers
  // prefetch every access's slot before the first Access().
  void Prefetch(Address addr) const { intervals_.Prefetch(addr); }

  // Like Access for a free: every earlier access must be ordered before it
  // (violations are returned); then the range holds the single marker
  // `after`: the free itself, or the allocation reusing the memory (one
  // rewrite of the range instead of two).
  template <typename IsHost>
  void Free(Address addr, uint64_t size, const ShadowAccess& free, const VectorClock& clock,
            IsHost is_host, std::vector<ShadowConflict>* conflicts, const ShadowAccess& after);

  // Forgets [addr, addr+size) (destroyed memory); if `marker` is valid the
  // range starts with it as its last write (stream-ordered allocation).
  void Reset(Address addr, uint64_t size, const ShadowAccess& marker);
  // A fresh allocation: [addr, addr+size) becomes one interval with no
  // history. Equivalent to forgetting it, but the first access to the whole
  // buffer then takes Access's fast path instead of carving a gap (a walk of
  // the ordered starts, ~0.5 us per buffer with 100k live ones). Not merged
  // with its neighbours, so the allocation's bounds stay interval bounds.
  void Fresh(Address addr, uint64_t size);
  // Forgets the frees in [addr, addr+size) and nothing else: the host mapped
  // memory of its own where CUDA freed some (ShadowKind::kFree markers).
  void ForgetFrees(Address addr, uint64_t size);

  size_t interval_count() const { return intervals_.size(); }
  size_t first_byte_intervals() const { return first_byte_intervals_; }
  // Every interval in address order, as kept (first-byte intervals joined).
  template <typename F>
  void ForEachInterval(F f) const {
    for (Address begin : starts_) f(begin, *intervals_.Find(begin));
  }
  // The slots, the ordered starts and the spilled reads (memory_estimate.h).
  size_t HeapBytes() const;

 private:
  // Access on intervals none of which is in first-byte form.
  template <typename IsHost>
  void AccessSplit(Address addr, Address end, const ShadowAccess& now, const VectorClock& clock, IsHost& is_host,
                   std::vector<ShadowConflict>* conflicts, bool keep_under_write);
  // Access where the extent is not one interval (or one in first-byte form
  // that the access may take in place).
  template <typename IsHost>
  void AccessSlow(Address addr, Address end, const ShadowAccess& now, const VectorClock& clock, IsHost& is_host,
                  std::vector<ShadowConflict>* conflicts, bool keep_under_write);
  // AccessFirstByte where the extent is not one interval in first-byte form
  // (nor one the access may take so in place): the two parts apart.
  template <typename IsHost>
  [[gnu::noinline]] size_t AccessFirstByteSlow(Address addr, Address end, const ShadowAccess& now,
                                               const VectorClock& clock, IsHost& is_host,
                                               std::vector<ShadowConflict>* conflicts, bool keep_under_write);

  static bool InFirstByteForm(const ShadowInterval& iv) { return iv.write.first_byte || iv.reads.has_first_byte(); }
  // shadow_first_byte.cpp. Every entry of `iv` made `part` of itself (HeadPart, TailPart).
  static void TakePart(ShadowInterval* iv, ShadowAccess (*part)(ShadowAccess));
  // The first-byte intervals that an access to [addr, end) may look at
  // (those starting from the last one before addr up to end) split into
  // their two intervals, and joined again after. Split returns false, at
  // once, when there is none.
  bool SplitFirstBytes(Address addr, Address end);
  void JoinFirstBytes(Address addr, Address end);
  // Joins [begin, begin+1) and the interval at begin+1 if they qualify.
  bool JoinFirstByteAt(Address begin);

  // Makes [addr, end) covered by intervals with bounds at addr and end; fills
  // `covering_` with their starts in order.
  void Carve(Address addr, Address end);
  void SplitAt(Address begin, Address at);
  void MergeAround(Address addr, Address end);
  // Makes [addr, end) one interval whose last write is `write`, reusing the
  // interval at addr rather than erasing and inserting it again.
  void Replace(Address addr, Address end, const ShadowAccess& write);
  void Insert(Address begin, ShadowInterval interval);
  void Erase(Address begin);
  // Starts of the intervals overlapping [addr, end), in order.
  void Overlapping(Address addr, Address end, std::vector<Address>* out) const;

  AddressMap<ShadowInterval> intervals_;  // start -> interval
  AddressSet starts_;                     // the same starts, ordered
  std::vector<Address> covering_;         // scratch
  size_t first_byte_intervals_ = 0;       // intervals in first-byte form
};

}  // namespace streamcheck

#include "runtime/shadow_memory_inl.h"
