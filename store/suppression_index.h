// Which lines of a suppressions file may match a finding, found without trying
// every line (100,001 lines against 20,000 findings took 90 s that way). Each
// suppression is filed under its rule and one literal piece of one of its
// patterns, the most selective it has: a whole pattern without wildcards,
// else the text before its first wildcard, else after its last, else its
// longest run between wildcards; one with no such piece (`*`, no pattern) is
// a candidate for every finding of its rule. A finding's candidates are those
// filed under its rule or `*` whose piece its names hold in that place; each
// is then matched in full, in line order, so the first matching line wins as
// before.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/finding.h"

namespace streamcheck {

struct Suppression;

class SuppressionIndex {
 public:
  // `index`: the suppression's position in its list.
  void Add(const Suppression& suppression, uint32_t index);
  // The positions of the suppressions that may match, ascending, each once.
  std::vector<uint32_t> Candidates(const Finding& finding) const;

 private:
  enum Field { kKernel, kFunction, kFile, kFields };
  enum Place { kWhole, kStart, kEnd, kInside, kPlaces };
  // One rule's suppressions, by field, place and piece.
  struct Pieces {
    std::unordered_map<std::string, std::vector<uint32_t>> by_piece[kFields][kPlaces];
    std::set<size_t> lengths[kFields][kPlaces];  // of the pieces filed there
    std::vector<uint32_t> always;                // no piece: candidates for every finding
  };
  // The piece `pattern` is filed under and where it holds it (empty: none).
  static std::pair<std::string, Place> PieceOf(const std::string& pattern);
  void Collect(const Pieces& pieces, const Finding& finding, std::vector<uint32_t>* out) const;
  static void Lookup(const Pieces& pieces, Field field, std::string_view text, std::vector<uint32_t>* out);

  std::unordered_map<std::string, Pieces> by_rule_;
};

}  // namespace streamcheck
