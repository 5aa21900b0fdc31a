// Folds identical races into one finding with a count, and forwards each new
// finding to the sink the moment it is found.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "rules/catalogue.h"
#include "runtime/finding.h"

namespace streamcheck {

struct FindingKey {
  rules::RuleId rule;
  FindingKind kind;
  uint32_t earlier_site;
  uint32_t later_site;
  // A finding held to a warning (Finding::at_most_warning) is another
  // finding than the error the same two sites make where it is certain.
  bool at_most_warning = false;
  friend bool operator==(const FindingKey&, const FindingKey&) = default;
};

class FindingCollector {
 public:
  FindingCollector(FindingSink* sink, uint64_t max_distinct) : sink_(sink), max_distinct_(max_distinct) {}

  // Counts an occurrence; on the first one, `build` makes the finding (for
  // the sink: without one it is not called). True for the first.
  bool Report(const FindingKey& key, const std::function<Finding()>& build);
  bool Contains(const FindingKey& key) const { return counts_.count(key) != 0; }
  // Sends counts of findings seen more than once.
  void Flush();

  // Every finding counted so far (in no order), with its id and count.
  template <typename Visit>
  void ForEach(Visit&& visit) const {
    for (const auto& [key, e] : counts_) visit(key, e.local_id, e.count);
  }

  uint64_t distinct() const { return counts_.size(); }
  uint64_t occurrences() const { return occurrences_; }

 private:
  struct KeyHash {
    size_t operator()(const FindingKey& k) const {
      uint64_t h = static_cast<uint64_t>(k.rule) << 56 ^ static_cast<uint64_t>(k.kind) << 48;
      h ^= uint64_t{k.earlier_site} * 0x9E3779B97F4A7C15ull;
      h ^= uint64_t{k.later_site} * 0xC2B2AE3D27D4EB4Full;
      h ^= uint64_t{k.at_most_warning} << 40;
      return static_cast<size_t>(h ^ (h >> 31));
    }
  };
  struct Entry {
    uint64_t local_id;
    uint64_t count;
    uint64_t flushed_count;
  };
  FindingSink* sink_;
  uint64_t max_distinct_;
  uint64_t occurrences_ = 0;
  std::unordered_map<FindingKey, Entry, KeyHash> counts_;
};

}  // namespace streamcheck
