#include "tracer/kernel_access/kernel_arguments.h"

#include <algorithm>

namespace streamcheck::tracer {

namespace {

// Merges accesses to one range into the first of them, in place, keeping the
// order of first occurrence. Most launches pass a handful of pointers: a
// pairwise scan, no allocation.
void MergeRepeatedRangesFew(std::vector<MemoryAccess>* accesses) {
  size_t kept = 0;
  for (size_t i = 0; i < accesses->size(); ++i) {
    const MemoryAccess& a = (*accesses)[i];
    size_t j = 0;
    while (j < kept && ((*accesses)[j].addr != a.addr || (*accesses)[j].size != a.size)) ++j;
    if (j < kept) {
      (*accesses)[j].mode = MergeAccessModes((*accesses)[j].mode, a.mode);
      (*accesses)[j].certainty = MoreCertain((*accesses)[j].certainty, a.certainty);
    } else {
      (*accesses)[kept++] = a;
    }
  }
  accesses->resize(kept);
}

// The same for PyTorch's _foreach launches with hundreds of pointers: by
// sorting, not by comparing every pair.
void MergeRepeatedRangesMany(std::vector<MemoryAccess>* accesses) {
  const std::vector<MemoryAccess>& extents = *accesses;
  std::vector<uint32_t> order(extents.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (extents[a].addr != extents[b].addr) return extents[a].addr < extents[b].addr;
    if (extents[a].size != extents[b].size) return extents[a].size < extents[b].size;
    return a < b;
  });
  std::vector<bool> keep(extents.size(), true);
  std::vector<AccessMode> mode(extents.size());
  std::vector<AccessCertainty> certainty(extents.size());
  for (size_t k = 0; k < order.size();) {
    const MemoryAccess& first = extents[order[k]];
    AccessMode merged = first.mode;
    AccessCertainty surest = first.certainty;
    size_t end = k + 1;
    for (; end < order.size() && extents[order[end]].addr == first.addr && extents[order[end]].size == first.size; ++end) {
      merged = MergeAccessModes(merged, extents[order[end]].mode);
      surest = MoreCertain(surest, extents[order[end]].certainty);
      keep[order[end]] = false;
    }
    mode[order[k]] = merged;
    certainty[order[k]] = surest;
    k = end;
  }
  size_t kept = 0;
  for (uint32_t i = 0; i < extents.size(); ++i)
    if (keep[i]) (*accesses)[kept++] = {extents[i].addr, extents[i].size, mode[i], certainty[i]};
  accesses->resize(kept);
}

}  // namespace

void ResolvePointerWords(const std::vector<MemoryAccess>& words, AllocationBounds& bounds,
                         std::vector<MemoryAccess>* out) {
  out->clear();
  // Every launch passes through here: the pointers' vector keeps its capacity.
  thread_local std::vector<AllocationBounds::Pointer> pointers;
  pointers.clear();
  for (const MemoryAccess& word : words) {
    if (word.size == kBoundaryWord) bounds.NoteBoundary(word.addr);  // before LaunchExtents
    else if (AllocationBounds::Entry* holder = bounds.Holder(word.addr))
      pointers.push_back({word.addr, word.mode, word.certainty, holder});
  }
  if (pointers.empty()) return;
  bounds.LaunchExtents(pointers, out);
  constexpr size_t kPairwiseLimit = 16;
  if (out->size() <= kPairwiseLimit) MergeRepeatedRangesFew(out);
  else MergeRepeatedRangesMany(out);
}

}  // namespace streamcheck::tracer
