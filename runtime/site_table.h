// Interned code sites: which call (API, kernel, framework op, host stack,
// host thread) performed an operation. Shadow memory refers to sites by id,
// so its size does not grow with the number of operations, and identical races
// found again and again share one finding. Interning runs once per operation,
// so the table is open-addressed (one probe in the common case).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/ids.h"

namespace streamcheck {

struct Site {
  StringId api = 0;
  StringId name = 0;
  StringId framework_op = 0;
  StackId stack = 0;
  ThreadId thread = 0;
  friend bool operator==(const Site&, const Site&) = default;
};

class SiteTable {
 public:
  SiteTable() : sites_(1), slots_(kInitialSlots, 0) {}  // id 0: unknown site
  uint32_t Intern(const Site& site);
  const Site& Get(uint32_t id) const { return sites_[id]; }
  size_t size() const { return sites_.size(); }

 private:
  static constexpr size_t kInitialSlots = 256;
  static size_t Hash(const Site& s);
  void Grow();

  std::vector<Site> sites_;
  std::vector<uint32_t> slots_;  // site ids; 0 = empty
};

}  // namespace streamcheck
