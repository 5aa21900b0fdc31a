// Shadow memory: for every byte range that operations touched, who last wrote
// it and who read it since (one read per lane, FastTrack style). Ranges are
// exact: adjacent disjoint slices of one buffer never conflict, partial
// overlaps split intervals at the overlap's bounds. Adjacent intervals with
// equal state are merged again, so memory follows live buffers, not trace length.
//
// Layout: each interval lives in a 64-byte slot of a hash map keyed by its
// start, so the common access (a whole buffer, seen before) costs one cache
// miss; an ordered set of starts serves the rare split, gap and merge.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "runtime/address_map.h"
#include "runtime/read_set.h"
#include "runtime/shadow_access.h"
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

class ShadowMemory {
 public:
  // Checks an access against the history of [addr, addr+size), appends
  // conflicts to `conflicts`, and records the access. `is_host(lane)` tells
  // whether a lane is a host thread (host/host pairs are never reported).
  // `host_threads_unordered`: host threads have clocks of their own, so two of
  // them may write unordered (a host write then keeps what it replaced).
  template <typename IsHost>
  void Access(Address addr, uint64_t size, const ShadowAccess& now, const VectorClock& clock,
              IsHost is_host, std::vector<ShadowConflict>* conflicts, bool host_threads_unordered = false);

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
  // The slots, the ordered starts and the spilled reads (memory_estimate.h).
  size_t HeapBytes() const;

 private:
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
  std::set<Address> starts_;              // the same starts, ordered
  std::vector<Address> covering_;         // scratch
};

}  // namespace streamcheck

#include "runtime/shadow_memory_inl.h"
