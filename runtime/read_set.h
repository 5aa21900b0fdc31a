// The reads of a shadow interval since its last write, at most one per lane.
// One fits inline (most buffers are read by one stream between writes); more
// spill to the heap, so the whole interval stays within one cache line.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "runtime/shadow_access.h"

namespace streamcheck {

class ReadSet {
 public:
  ReadSet() = default;
  ReadSet(const ReadSet& o) { *this = o; }
  ReadSet& operator=(const ReadSet& o) {
    first_ = o.first_;
    count_ = o.count_;
    more_ = o.more_ ? std::make_unique<std::vector<ShadowAccess>>(*o.more_) : nullptr;
    return *this;
  }
  ReadSet(ReadSet&&) noexcept = default;
  ReadSet& operator=(ReadSet&&) noexcept = default;

  size_t size() const { return count_; }
  const ShadowAccess& operator[](size_t i) const { return i == 0 ? first_ : (*more_)[i - 1]; }

  void push_back(const ShadowAccess& a) {
    if (count_ == 0) {
      first_ = a;
    } else {
      if (!more_) more_ = std::make_unique<std::vector<ShadowAccess>>();
      more_->push_back(a);
    }
    ++count_;
  }
  void clear() {
    count_ = 0;
    if (more_) more_->clear();
  }
  // The read of `lane`, or nullptr.
  ShadowAccess* FindLane(Lane lane) {
    if (count_ == 0) return nullptr;
    if (first_.lane == lane) return &first_;
    if (count_ > 1)
      for (ShadowAccess& a : *more_)
        if (a.lane == lane) return &a;
    return nullptr;
  }
  bool SameAs(const ReadSet& o) const {
    if (count_ != o.count_) return false;
    for (size_t i = 0; i < count_; ++i)
      if (!(*this)[i].SameAs(o[i])) return false;
    return true;
  }

 private:
  ShadowAccess first_{};
  uint32_t count_ = 0;
  std::unique_ptr<std::vector<ShadowAccess>> more_;
};

}  // namespace streamcheck
