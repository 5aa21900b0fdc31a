#include "store/suppression_index.h"

#include <algorithm>

#include "store/suppressions.h"

namespace streamcheck {
namespace {

bool IsWildcard(char c) { return c == '*' || c == '?'; }

}  // namespace

std::pair<std::string, SuppressionIndex::Place> SuppressionIndex::PieceOf(const std::string& pattern) {
  if (std::none_of(pattern.begin(), pattern.end(), IsWildcard)) return {pattern, kWhole};
  const size_t first = std::find_if(pattern.begin(), pattern.end(), IsWildcard) - pattern.begin();
  if (first > 0) return {pattern.substr(0, first), kStart};
  const size_t last = std::find_if(pattern.rbegin(), pattern.rend(), IsWildcard) - pattern.rbegin();
  if (last > 0) return {pattern.substr(pattern.size() - last), kEnd};
  std::string longest;
  for (size_t i = 0; i < pattern.size();) {
    size_t j = i;
    while (j < pattern.size() && !IsWildcard(pattern[j])) ++j;
    if (j - i > longest.size()) longest = pattern.substr(i, j - i);
    i = j + 1;
  }
  return {longest, kInside};
}

void SuppressionIndex::Add(const Suppression& s, uint32_t index) {
  Pieces& pieces = by_rule_[s.rule];
  // The most selective piece: by place (a whole name first), then by length.
  const std::string* patterns[kFields] = {&s.kernel, &s.function, &s.file};
  int best_field = -1;
  Place best_place = kPlaces;
  std::string best;
  for (int field = 0; field < kFields; ++field) {
    if (patterns[field]->empty()) continue;
    auto [piece, place] = PieceOf(*patterns[field]);
    if (piece.empty()) continue;
    if (place < best_place || (place == best_place && piece.size() > best.size()))
      best_field = field, best_place = place, best = std::move(piece);
  }
  if (best_field < 0) {
    pieces.always.push_back(index);
    return;
  }
  pieces.lengths[best_field][best_place].insert(best.size());
  pieces.by_piece[best_field][best_place][best].push_back(index);
}

void SuppressionIndex::Lookup(const Pieces& pieces, Field field, std::string_view text, std::vector<uint32_t>* out) {
  auto take = [&](int place, std::string_view piece) {
    const auto& map = pieces.by_piece[field][place];
    if (auto it = map.find(std::string(piece)); it != map.end()) out->insert(out->end(), it->second.begin(), it->second.end());
  };
  if (!pieces.by_piece[field][kWhole].empty()) take(kWhole, text);
  for (size_t n : pieces.lengths[field][kStart]) {
    if (n > text.size()) break;
    take(kStart, text.substr(0, n));
  }
  for (size_t n : pieces.lengths[field][kEnd]) {
    if (n > text.size()) break;
    take(kEnd, text.substr(text.size() - n));
  }
  for (size_t n : pieces.lengths[field][kInside]) {
    if (n > text.size()) break;
    for (size_t at = 0; at + n <= text.size(); ++at) take(kInside, text.substr(at, n));
  }
}

void SuppressionIndex::Collect(const Pieces& pieces, const Finding& finding, std::vector<uint32_t>* out) const {
  out->insert(out->end(), pieces.always.begin(), pieces.always.end());
  for (const FindingAccess& access : finding.accesses) {
    Lookup(pieces, kKernel, access.op, out);
    if (!access.framework_op.empty()) Lookup(pieces, kKernel, access.framework_op, out);
    for (const ResolvedFrame& frame : access.stack) {
      Lookup(pieces, kFunction, frame.function, out);
      Lookup(pieces, kFile, frame.file, out);
    }
  }
}

std::vector<uint32_t> SuppressionIndex::Candidates(const Finding& finding) const {
  std::vector<uint32_t> out;
  for (const std::string& rule : {finding.rule, std::string("*")})
    if (auto it = by_rule_.find(rule); it != by_rule_.end()) Collect(it->second, finding, &out);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace streamcheck
