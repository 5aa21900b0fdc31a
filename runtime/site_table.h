// Interned code sites: which call (API, kernel, framework op, host stack,
// host thread) performed an operation. Shadow memory refers to sites by id,
// so its size does not grow with the number of operations, and identical races
// found again and again share one finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
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
  SiteTable() { sites_.push_back({}); }  // id 0: unknown site
  uint32_t Intern(const Site& site);
  const Site& Get(uint32_t id) const { return sites_[id]; }
  size_t size() const { return sites_.size(); }

 private:
  struct Hash {
    size_t operator()(const Site& s) const {
      uint64_t h = s.api;
      h = h * 0x9E3779B97F4A7C15ull ^ s.name;
      h = h * 0x9E3779B97F4A7C15ull ^ s.framework_op;
      h = h * 0x9E3779B97F4A7C15ull ^ s.stack;
      h = h * 0x9E3779B97F4A7C15ull ^ s.thread;
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  std::vector<Site> sites_;
  std::unordered_map<Site, uint32_t, Hash> ids_;
};

}  // namespace streamcheck
