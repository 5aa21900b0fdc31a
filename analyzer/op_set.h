// A set of operation ids as a sorted vector: the analysis copies and joins
// these sets at every CFG block, and ids are small integers mostly inserted
// in increasing order, so a flat array is a tenth of the memory of a
// std::set and its merges are linear scans.
#pragma once

#include <algorithm>
#include <iterator>
#include <vector>

namespace streamcheck::lint {

class OpSet {
 public:
  using const_iterator = std::vector<int>::const_iterator;

  OpSet() = default;
  OpSet(std::initializer_list<int> ids) {
    for (int id : ids) insert(id);
  }

  const_iterator begin() const { return ids_.begin(); }
  const_iterator end() const { return ids_.end(); }
  size_t size() const { return ids_.size(); }
  bool empty() const { return ids_.empty(); }
  size_t count(int id) const { return std::binary_search(ids_.begin(), ids_.end(), id) ? 1 : 0; }

  void insert(int id) {
    // New work gets the newest id: appending is the common case.
    if (ids_.empty() || ids_.back() < id) {
      ids_.push_back(id);
      return;
    }
    auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
    if (it == ids_.end() || *it != id) ids_.insert(it, id);
  }
  void insert(const_iterator first, const_iterator last) {
    std::vector<int> merged;
    merged.reserve(ids_.size() + static_cast<size_t>(std::distance(first, last)));
    std::set_union(ids_.begin(), ids_.end(), first, last, std::back_inserter(merged));
    ids_.swap(merged);
  }
  void insert(const OpSet& other) { insert(other.begin(), other.end()); }
  size_t erase(int id) {
    auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
    if (it == ids_.end() || *it != id) return 0;
    ids_.erase(it);
    return 1;
  }
  void erase(const OpSet& other) {
    std::vector<int> kept;
    kept.reserve(ids_.size());
    std::set_difference(ids_.begin(), ids_.end(), other.begin(), other.end(), std::back_inserter(kept));
    ids_.swap(kept);
  }
  // Keeps the `n` largest ids (the newest work), dropping the rest.
  void keep_newest(size_t n) {
    if (ids_.size() > n) ids_.erase(ids_.begin(), ids_.end() - static_cast<std::ptrdiff_t>(n));
  }
  template <typename Pred>
  void erase_if(Pred pred) {
    ids_.erase(std::remove_if(ids_.begin(), ids_.end(), pred), ids_.end());
  }
  void clear() { ids_.clear(); }
  bool operator==(const OpSet&) const = default;

 private:
  std::vector<int> ids_;
};

}  // namespace streamcheck::lint
