// Rewrites the paths a trace or a database recorded where it was made (a
// container, a CI runner, another checkout) into the reader's: OLD=NEW pairs,
// as compilers' -fdebug-prefix-map. A path under OLD (OLD itself, or OLD
// followed by '/') becomes NEW followed by the rest; the longest OLD that
// matches wins, so an inner folder can be mapped apart from its parent. An
// empty NEW makes the rest a relative path ("/ci/src=" turns
// "/ci/src/app.cu" into "app.cu").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/finding.h"
#include "runtime/trace_record.h"

namespace streamcheck {

class PathMap {
 public:
  // Adds "OLD=NEW"; false with `error` set when the text has no '=' or an
  // empty OLD, or OLD was given before.
  bool Add(std::string_view spec, std::string* error);
  bool empty() const { return pairs_.empty(); }

  // The path as the reader knows it; unchanged when no OLD matches.
  std::string Map(std::string_view path) const;
  // Every file path of the finding's frames: accesses, synchronizations,
  // stream and event origins, the allocation.
  void Apply(Finding* finding) const;
  // A trace's string definitions that name a mapped path (frames refer to
  // their files by these strings).
  void Apply(TraceRecord* record) const;

 private:
  struct Pair {
    std::string old_prefix;
    std::string new_prefix;
  };
  std::vector<Pair> pairs_;  // longest old_prefix first
};

}  // namespace streamcheck
