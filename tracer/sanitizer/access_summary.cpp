#include "tracer/sanitizer/access_summary.h"

#include <algorithm>
#include <numeric>

namespace streamcheck::tracer::precise {
namespace {

struct Interval {
  Address begin, end;
};

// Appends the runs of set bits of `bits` (bit i = byte base + i) to *runs,
// extending the last run where it ends right where the next begins.
inline void AppendRuns(uint64_t bits, Address base, std::vector<Interval>* runs) {
  if (bits == ~uint64_t{0}) {  // most words of a buffer read or written whole
    if (!runs->empty() && runs->back().end == base) runs->back().end = base + 64;
    else runs->push_back({base, base + 64});
    return;
  }
  while (bits != 0) {
    const unsigned start = __builtin_ctzll(bits);
    const uint64_t from_start = bits >> start;
    const unsigned length = ~from_start == 0 ? 64 - start : __builtin_ctzll(~from_start);
    const Address begin = base + start, end = begin + length;
    if (!runs->empty() && runs->back().end == begin) runs->back().end = end;
    else runs->push_back({begin, end});
    bits = length + start >= 64 ? 0 : bits & ~(((uint64_t{1} << length) - 1) << start);
  }
}

// Joins the closest neighbours until at most `limit` intervals remain: the
// limit - 1 widest gaps stay.
void Coarsen(std::vector<Interval>* intervals, size_t limit, bool* joined) {
  if (intervals->size() <= limit || limit == 0) return;
  *joined = true;
  const std::vector<Interval>& in = *intervals;
  std::vector<size_t> order(in.size() - 1);  // gap i lies between interval i and i + 1
  std::iota(order.begin(), order.end(), size_t{0});
  auto gap = [&](size_t i) { return in[i + 1].begin - in[i].end; };
  std::nth_element(order.begin(), order.begin() + (limit - 1), order.end(),
                   [&](size_t a, size_t b) { return gap(a) > gap(b); });
  std::vector<bool> kept(order.size(), false);
  for (size_t k = 0; k + 1 < limit; ++k) kept[order[k]] = true;
  std::vector<Interval> out{in[0]};
  for (size_t i = 1; i < in.size(); ++i) {
    if (kept[i - 1]) out.push_back(in[i]);
    else out.back().end = in[i].end;
  }
  *intervals = std::move(out);
}

}  // namespace

RangeMerger::Page& RangeMerger::PageAt(Address page_base) {
  // Hashed: buffers a power of two apart (a kernel's input and output of
  // 64 MiB each) would share every entry by their low page bits.
  Recent& recent = recent_[(page_base / kPageBytes * 0x9E3779B97F4A7C15ull) >> (64 - kRecentBits)];
  if (recent.base == page_base) return pages_[recent.index];
  auto [it, inserted] = page_of_.try_emplace(page_base, static_cast<uint32_t>(bases_.size()));
  if (inserted) {
    if (pages_.size() < bases_.size() + 1) pages_.emplace_back();
    Page& fresh = pages_[bases_.size()];
    fresh.read.fill(0);
    fresh.write.fill(0);
    bases_.push_back(page_base);
  }
  recent = {page_base, it->second};
  return pages_[it->second];
}

void RangeMerger::Mark(Address begin, Address end, bool read, bool write) {
  while (begin < end) {
    const Address base = begin & ~(kPageBytes - 1);
    const Address stop = std::min(end, base + kPageBytes);
    Page& page = PageAt(base);
    for (Address at = begin; at < stop;) {
      const size_t word = (at - base) / 64;
      const unsigned first = (at - base) % 64;
      const unsigned last = std::min<Address>(stop - (base + word * 64), 64);  // one past, within the word
      const uint64_t mask = (last == 64 ? ~uint64_t{0} : (uint64_t{1} << last) - 1) & ~((uint64_t{1} << first) - 1);
      if (read) page.read[word] |= mask;
      if (write) page.write[word] |= mask;
      at = base + word * 64 + last;
    }
    begin = stop;
  }
}

void RangeMerger::Add(std::span<const AccessRange> ranges) {
  for (const AccessRange& r : ranges) {
    if (!TouchesBytes(r)) continue;
    Mark(r.address, r.address + r.size, (r.flags & kRangeRead) != 0, (r.flags & kRangeWrite) != 0);
  }
}

void LimitAccesses(std::vector<MemoryAccess>* accesses, size_t max_accesses, bool* joined) {
  if (accesses->size() <= max_accesses) return;
  std::sort(accesses->begin(), accesses->end(), [](const MemoryAccess& a, const MemoryAccess& b) {
    return a.mode != b.mode ? a.mode < b.mode : a.addr < b.addr;
  });
  const size_t limit = std::max<size_t>(max_accesses / 3, 1);  // per mode: read, write, both
  std::vector<MemoryAccess> out;
  for (size_t begin = 0; begin < accesses->size();) {
    size_t end = begin;
    std::vector<Interval> intervals;
    while (end < accesses->size() && (*accesses)[end].mode == (*accesses)[begin].mode) {
      intervals.push_back({(*accesses)[end].addr, (*accesses)[end].addr + (*accesses)[end].size});
      ++end;
    }
    Coarsen(&intervals, limit, joined);
    for (const Interval& i : intervals) out.push_back({i.begin, i.end - i.begin, (*accesses)[begin].mode});
    begin = end;
  }
  *accesses = std::move(out);
}

void JoinParts(std::vector<MemoryAccess>* accesses) {
  std::sort(accesses->begin(), accesses->end(), [](const MemoryAccess& a, const MemoryAccess& b) {
    return a.mode != b.mode ? a.mode < b.mode : a.addr < b.addr;
  });
  size_t kept = 0;
  for (const MemoryAccess& a : *accesses) {
    MemoryAccess& last = (*accesses)[kept > 0 ? kept - 1 : 0];
    if (kept > 0 && last.mode == a.mode && last.certainty == a.certainty && last.addr + last.size == a.addr)
      last.size += a.size;
    else
      (*accesses)[kept++] = a;
  }
  accesses->resize(kept);
}

void RangeMerger::Take(size_t max_accesses, std::vector<MemoryAccess>* out, bool* joined) {
  out->clear();
  *joined = false;
  std::vector<uint32_t> order(bases_.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return bases_[a] < bases_[b]; });
  std::vector<Interval> read_only, write_only, both;
  for (uint32_t i : order) {
    const Page& page = pages_[i];
    for (size_t w = 0; w < kWords; ++w) {
      const uint64_t read = page.read[w], write = page.write[w];
      if ((read | write) == 0) continue;
      const Address base = bases_[i] + w * 64;
      if (const uint64_t bits = read & ~write) AppendRuns(bits, base, &read_only);
      if (const uint64_t bits = write & ~read) AppendRuns(bits, base, &write_only);
      if (const uint64_t bits = read & write) AppendRuns(bits, base, &both);
    }
  }
  for (auto [intervals, mode] : {std::pair{&read_only, AccessMode::kRead}, std::pair{&write_only, AccessMode::kWrite},
                                 std::pair{&both, AccessMode::kReadWrite}})
    for (const Interval& i : *intervals) out->push_back({i.begin, i.end - i.begin, mode});
  LimitAccesses(out, max_accesses, joined);
  page_of_.clear();
  bases_.clear();
  recent_.fill(Recent{});
}

}  // namespace streamcheck::tracer::precise
