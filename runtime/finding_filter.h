// A FindingSink in front of another that drops suppressed findings (and their
// later counts), and counts what it dropped. Used by replay, run and lint.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_set>

#include "runtime/finding.h"

namespace streamcheck {

class SuppressingSink : public FindingSink {
 public:
  using Predicate = std::function<bool(const Finding&)>;
  SuppressingSink(FindingSink* next, Predicate suppressed)
      : next_(next), suppressed_(std::move(suppressed)) {}

  void OnFinding(uint64_t local_id, const Finding& finding) override {
    if (suppressed_ && suppressed_(finding)) {
      dropped_.insert(local_id);
      return;
    }
    ++forwarded_;
    if (next_) next_->OnFinding(local_id, finding);
  }
  void OnFindingCount(uint64_t local_id, uint64_t count) override {
    if (!dropped_.count(local_id) && next_) next_->OnFindingCount(local_id, count);
  }

  uint64_t suppressed() const { return dropped_.size(); }
  uint64_t forwarded() const { return forwarded_; }

 private:
  FindingSink* next_;
  Predicate suppressed_;
  std::unordered_set<uint64_t> dropped_;
  uint64_t forwarded_ = 0;
};

}  // namespace streamcheck
