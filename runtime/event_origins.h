// Where each live event came from: the site of its create call and the
// process's count of events created so far, so reports name events for
// people ("event 2 (created at train.cu:14)") rather than by handle.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "runtime/ids.h"
#include "runtime/memory_estimate.h"

namespace streamcheck {

class EventOrigins {
 public:
  struct Origin {
    uint32_t site = 0;
    uint32_t ordinal = 0;  // 0: no create seen
  };
  void NoteCreated(Handle event, uint32_t site) { origins_[event] = {site, ++created_}; }
  void NoteDestroyed(Handle event) { origins_.erase(event); }
  size_t HeapBytes() const { return memory::HashMap(origins_); }
  Origin Find(Handle event) const {
    auto it = origins_.find(event);
    return it == origins_.end() ? Origin{} : it->second;
  }

 private:
  std::unordered_map<Handle, Origin> origins_;
  uint32_t created_ = 0;
};

}  // namespace streamcheck
