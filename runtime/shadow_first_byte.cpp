// Shadow intervals in first-byte form (ShadowAccess::first_byte): a kernel
// pointer's certain first byte and guessed rest kept as one interval. Such
// an interval [b, e) stands for two, [b, b+1) holding its entries' HeadPart
// and [b+1, e) their TailPart; this is all that ever differs from keeping
// the two. Cutting one (SplitAt) cuts what it stands for. An access's slow
// path (carving, checking and recording, merging) splits the first-byte
// intervals it may look at before it works, and joins the pairs that
// qualify again after, so it sees and leaves exactly the intervals it would
// have without the form. Frees, resets and fresh allocations need not: they
// overwrite what they cover, and their allocation or free marker merges
// with no part of a kernel's access.
#include <iterator>

#include "runtime/shadow_memory.h"

namespace streamcheck {
namespace {

// `head` on [b, b+1) and `tail` on [b+1, e) as one interval in first-byte
// form, if they are what one stands for: each pair of entries the same, or
// the same access certain in the head and guessed in the tail, at least one
// such. The entries keep their order, so the reads' lanes match by position.
bool JoinPair(const ShadowInterval& head, const ShadowInterval& tail, ShadowInterval* out) {
  if (head.reads.size() != tail.reads.size()) return false;
  bool first_byte = false;
  auto join = [&first_byte](const ShadowAccess& h, const ShadowAccess& t, ShadowAccess* j) {
    if (h.SameAs(t)) {
      *j = h;
      return true;
    }
    ShadowAccess guessed = h;
    guessed.guessed = true;
    if (h.guessed || h.first_byte || !guessed.SameAs(t)) return false;
    *j = t;
    j->first_byte = true;
    first_byte = true;
    return true;
  };
  out->end = tail.end;
  if (!join(head.write, tail.write, &out->write)) return false;
  out->reads.clear();
  for (size_t i = 0; i < head.reads.size(); ++i) {
    ShadowAccess j;
    if (!join(head.reads[i], tail.reads[i], &j)) return false;
    out->reads.push_back(j);
  }
  return first_byte;
}

}  // namespace

void ShadowMemory::TakePart(ShadowInterval* iv, ShadowAccess (*part)(ShadowAccess)) {
  iv->write = part(iv->write);
  ReadSet reads;
  for (size_t i = 0; i < iv->reads.size(); ++i) reads.push_back(part(iv->reads[i]));
  iv->reads = std::move(reads);
}

bool ShadowMemory::SplitFirstBytes(Address addr, Address end) {
  if (first_byte_intervals_ == 0) return false;
  auto it = starts_.LowerBound(addr);
  if (it != starts_.begin()) --it;
  bool split = false;
  for (; it != starts_.end() && *it <= end; ++it) {
    const Address begin = *it;
    if (!InFirstByteForm(*intervals_.Find(begin))) continue;
    SplitAt(begin, begin + 1);       // the loop's next start: plain, passed over
    it = starts_.LowerBound(begin);  // a split invalidates the set's iterators
    split = true;
  }
  return split;
}

void ShadowMemory::JoinFirstBytes(Address addr, Address end) {
  // From two intervals before addr: the one SplitFirstBytes split there is
  // now its first byte and the rest, which is the last before addr.
  auto it = starts_.LowerBound(addr);
  for (int back = 0; back < 2 && it != starts_.begin(); ++back) --it;
  for (; it != starts_.end() && *it <= end; ++it) {
    const Address begin = *it;
    // A join erases the start after *it, and with it the set's iterators.
    if (JoinFirstByteAt(begin)) it = starts_.LowerBound(begin);
  }
}

bool ShadowMemory::JoinFirstByteAt(Address begin) {
  const ShadowInterval* head = intervals_.Find(begin);
  const ShadowInterval* tail = head != nullptr && head->end == begin + 1 ? intervals_.Find(begin + 1) : nullptr;
  ShadowInterval joined;
  if (tail == nullptr || !JoinPair(*head, *tail, &joined)) return false;
  Erase(begin + 1);  // moves slots: find the head again
  *intervals_.Find(begin) = std::move(joined);
  ++first_byte_intervals_;
  return true;
}

}  // namespace streamcheck
