// Interned code sites: which call (API, kernel, framework op, host stack,
// host thread, the library whose own work it was, and the scope open on its
// thread: runtime/scope_table.h) performed an operation. Shadow memory refers to sites by id,
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
  StringId library = 0;  // TraceRecord::library
  uint32_t scope = 0;    // ScopeTable's id of the scopes open on the thread; 0 = none
  friend bool operator==(const Site&, const Site&) = default;
};

class SiteTable {
 public:
  SiteTable() : sites_(1), slots_(kInitialSlots) {}  // id 0: unknown site
  uint32_t Intern(const Site& site) {
    const size_t mask = slots_.size() - 1;
    for (size_t i = Hash(site) & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (slot.id == 0) return Add(site);
      if (slot.site == site) return slot.id;
    }
  }
  const Site& Get(uint32_t id) const { return sites_[id]; }
  size_t size() const { return sites_.size(); }

 private:
  static constexpr size_t kInitialSlots = 256;
  // Four independent multiplies: a short dependency chain on the hot path.
  static size_t Hash(const Site& s) {
    const uint64_t a = (uint64_t{s.api} << 32 | s.name) * 0x9E3779B97F4A7C15ull;
    const uint64_t b = (uint64_t{s.framework_op} << 32 | s.stack) * 0xC2B2AE3D27D4EB4Full;
    const uint64_t c = (uint64_t{s.library} << 32 | (uint64_t{s.thread} + 1)) * 0x165667B19E3779F9ull;
    const uint64_t d = (uint64_t{s.scope} << 32 | s.scope) * 0xD6E8FEB86659FD93ull;
    const uint64_t h = a ^ b ^ c ^ d;
    return static_cast<size_t>(h ^ (h >> 32));  // the high halves mix every input bit
  }
  // A site not interned yet (or the unknown site, id 0, never in slots_).
  uint32_t Add(const Site& site);
  void Grow();

  // A slot holds its site, not only the id: interning is then one load and
  // a compare, not a second, dependent load from sites_.
  struct Slot {
    Site site;
    uint32_t id = 0;  // 0 = empty
  };
  std::vector<Site> sites_;
  std::vector<Slot> slots_;
};

}  // namespace streamcheck
