// The reads of a shadow interval since its last write, at most one per lane.
// One fits inline (most buffers are read by one stream between writes); more
// spill to one heap array, so the whole interval stays within one cache line
// and a spilled read is one dependent load away from the slot, not two.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>

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
    capacity_ = o.count_ > 1 ? o.count_ - 1 : 0;
    more_ = capacity_ > 0 ? std::make_unique<ShadowAccess[]>(capacity_) : nullptr;
    if (capacity_ > 0) std::copy(o.more_.get(), o.more_.get() + capacity_, more_.get());
    return *this;
  }
  ReadSet(ReadSet&&) noexcept = default;
  ReadSet& operator=(ReadSet&&) noexcept = default;

  size_t size() const { return count_; }
  const ShadowAccess& operator[](size_t i) const { return i == 0 ? first_ : more_[i - 1]; }

  void push_back(const ShadowAccess& a) {
    if (count_ == 0) {
      first_ = a;
    } else {
      if (count_ - 1 == capacity_) Grow();
      more_[count_ - 1] = a;
    }
    ++count_;
  }
  // Keeps the spill array for the next reads (buffers read by several streams
  // stay so between writes).
  void clear() { count_ = 0; }
  // The read of `lane`, or nullptr.
  ShadowAccess* FindLane(Lane lane) {
    if (count_ == 0) return nullptr;
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
  void Grow() {
    const uint32_t grown = capacity_ * 2 + 3;  // 3, 9, 21: 8 streams' reads fit the second
    auto bigger = std::make_unique<ShadowAccess[]>(grown);
    if (capacity_ > 0) std::copy(more_.get(), more_.get() + capacity_, bigger.get());
    more_ = std::move(bigger);
    capacity_ = grown;
  }

  ShadowAccess first_{};
  uint32_t count_ = 0;
  uint32_t capacity_ = 0;  // of more_
  std::unique_ptr<ShadowAccess[]> more_;
};
static_assert(sizeof(ReadSet) == 32, "keeps a shadow interval within one cache line");

}  // namespace streamcheck
