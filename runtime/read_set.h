// The reads of a shadow interval since its last write, at most one per lane.
// One fits inline (most buffers are read by one stream between writes); more
// spill to one heap array, so the whole interval stays within one cache line
// and a spilled read is one dependent load away from the slot, not two.
//
// Rarely it also keeps what a host write replaced, earlier writes among them:
// host threads with their own clocks may write the same bytes unordered (not
// our business to report), and the last write must not hide what came before
// it from later accesses (shadow_memory_inl.h, RecordHostWrite). has_writes()
// says that some entry is a write, in one load.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "runtime/memory_estimate.h"
#include "runtime/shadow_access.h"

namespace streamcheck {

class ReadSet {
 public:
  ReadSet() = default;
  ReadSet(const ReadSet& o) { *this = o; }
  ReadSet& operator=(const ReadSet& o) {
    if (this == &o) return *this;
    first_ = o.first_;
    count_ = o.count_;
    const uint32_t capacity = o.count_ > 1 ? o.count_ - 1 : 0;
    capacity_ = capacity | (o.capacity_ & kFlags);
    more_ = capacity > 0 ? std::make_unique<ShadowAccess[]>(capacity) : nullptr;
    if (capacity > 0) std::copy(o.more_.get(), o.more_.get() + capacity, more_.get());
    return *this;
  }
  ReadSet(ReadSet&&) noexcept = default;
  ReadSet& operator=(ReadSet&&) noexcept = default;

  size_t size() const { return count_; }
  size_t HeapBytes() const { return capacity() == 0 ? 0 : memory::Chunk(capacity() * sizeof(ShadowAccess)); }
  bool has_writes() const { return (capacity_ & kHasWrites) != 0; }
  // Some entry is a first-byte access (ShadowAccess::first_byte).
  bool has_first_byte() const { return (capacity_ & kHasFirstByte) != 0; }
  const ShadowAccess& operator[](size_t i) const { return i == 0 ? first_ : more_[i - 1]; }

  void push_back(const ShadowAccess& a) {
    if (count_ == 0) {
      first_ = a;
    } else {
      if (count_ - 1 == capacity()) Grow();
      more_[count_ - 1] = a;
    }
    ++count_;
    if (a.kind != ShadowKind::kRead) [[unlikely]] capacity_ |= kHasWrites;
    if (a.first_byte) capacity_ |= kHasFirstByte;
  }
  // Replaces the entry FindLane found.
  void Replace(ShadowAccess* entry, const ShadowAccess& a) {
    const bool was_first_byte = entry->first_byte;
    *entry = a;
    if (a.first_byte) {
      capacity_ |= kHasFirstByte;
    } else if (was_first_byte) [[unlikely]] {
      bool any = false;
      for (size_t i = 0; i < count_; ++i) any = any || (*this)[i].first_byte;
      if (!any) capacity_ &= ~kHasFirstByte;
    }
  }
  // Keeps the spill array for the next reads (buffers read by several streams
  // stay so between writes).
  void clear() {
    count_ = 0;
    capacity_ &= ~kFlags;
  }
  // The read of `lane`, or nullptr.
  ShadowAccess* FindLane(Lane lane) {
    if (count_ == 0) return nullptr;
    if (has_writes()) [[unlikely]]
      return FindReadOfLane(lane);
    if (first_.lane == lane) return &first_;
    // No early exit: buffers read by every stream (weights) keep a full
    // spill array, and which entry matches is random, so an exit at the match
    // was a mispredicted branch per access; the whole scan is a loop of fixed
    // length whose loads all start at once.
    const ShadowAccess* more = more_.get();
    const uint32_t spilled = count_ - 1;
    uint32_t match = spilled;
    for (uint32_t i = 0; i < spilled; ++i) match = more[i].lane == lane ? i : match;
    return match < spilled ? &more_[match] : nullptr;
  }
  bool SameAs(const ReadSet& o) const {
    if (count_ != o.count_) return false;
    for (size_t i = 0; i < count_; ++i)
      if (!(*this)[i].SameAs(o[i])) return false;
    return true;
  }

 private:
  static constexpr uint32_t kHasWrites = 1u << 31;     // in capacity_: some entry is a kept host write
  static constexpr uint32_t kHasFirstByte = 1u << 30;  // in capacity_: some entry is first_byte
  static constexpr uint32_t kFlags = kHasWrites | kHasFirstByte;
  uint32_t capacity() const { return capacity_ & ~kFlags; }
  // FindLane among entries that are reads (a lane's kept write stays beside its read).
  ShadowAccess* FindReadOfLane(Lane lane) {
    for (uint32_t i = 0; i < count_; ++i) {
      ShadowAccess& a = i == 0 ? first_ : more_[i - 1];
      if (a.lane == lane && a.kind == ShadowKind::kRead) return &a;
    }
    return nullptr;
  }
  void Grow() {
    const uint32_t grown = capacity() * 2 + 3;  // 3, 9, 21: 8 streams' reads fit the second
    auto bigger = std::make_unique<ShadowAccess[]>(grown);
    if (capacity() > 0) std::copy(more_.get(), more_.get() + capacity(), bigger.get());
    more_ = std::move(bigger);
    capacity_ = grown | (capacity_ & kFlags);
  }

  ShadowAccess first_{};
  uint32_t count_ = 0;
  uint32_t capacity_ = 0;  // of more_, and kFlags
  std::unique_ptr<ShadowAccess[]> more_;
};
static_assert(sizeof(ReadSet) == 32, "keeps a shadow interval within one cache line");

}  // namespace streamcheck
