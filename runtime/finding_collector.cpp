#include "runtime/finding_collector.h"

namespace streamcheck {

bool FindingCollector::Report(const FindingKey& key, FunctionRef<Finding()> build) {
  ++occurrences_;
  auto it = counts_.find(key);
  if (it != counts_.end()) {
    ++it->second.count;
    return false;
  }
  if (counts_.size() >= max_distinct_) return false;
  const uint64_t id = counts_.size() + 1;
  counts_.emplace(key, Entry{id, 1, 1});
  if (sink_) sink_->OnFinding(id, build());
  return true;
}

void FindingCollector::Flush() {
  if (!sink_) return;
  for (auto& [key, e] : counts_) {
    if (e.count != e.flushed_count) {
      sink_->OnFindingCount(e.local_id, e.count);
      e.flushed_count = e.count;
    }
  }
}

}  // namespace streamcheck
