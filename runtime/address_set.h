// An ordered set of addresses: the shadow's interval starts, for the rare
// split, gap and merge (shadow_memory.h). A std::set costs a malloc, a free
// and a rebalance per interval made or merged away, which made the caching
// allocator's block reuse (a carve, a replace and a merge per block) the
// engine's dearest operation. Here the keys sit sorted in leaves of up to
// kLeafKeys, found through the sorted last keys of the leaves: an insert or
// an erase moves a few keys inside one leaf and allocates only when a leaf
// splits.
//
// Unlike std::set, every insert and erase invalidates iterators: walk by
// key (UpperBound of the last one seen) where the walk changes the set.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/ids.h"
#include "runtime/memory_estimate.h"

namespace streamcheck {

class AddressSet {
  static constexpr uint32_t kLeafKeys = 62;  // a leaf, with its count, fills 512 bytes
  struct Leaf {
    uint32_t size = 0;
    Address keys[kLeafKeys];
  };

 public:
  class Iterator {
   public:
    Address operator*() const { return set_->leaves_[leaf_]->keys[pos_]; }
    Iterator& operator++() {
      if (++pos_ == set_->leaves_[leaf_]->size) ++leaf_, pos_ = 0;
      return *this;
    }
    Iterator& operator--() {  // also from end(): to the last key
      if (pos_ == 0) pos_ = set_->leaves_[--leaf_]->size;
      --pos_;
      return *this;
    }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.leaf_ == b.leaf_ && a.pos_ == b.pos_; }

   private:
    friend class AddressSet;
    Iterator(const AddressSet* set, size_t leaf, uint32_t pos) : set_(set), leaf_(leaf), pos_(pos) {}
    const AddressSet* set_;
    size_t leaf_;   // leaves_.size() at end()
    uint32_t pos_;  // 0 at end()
  };

  Iterator begin() const { return {this, 0, 0}; }
  Iterator end() const { return {this, leaves_.size(), 0}; }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  Address back() const { return lasts_.back(); }  // the largest; not on an empty set

  // The first key >= `key`.
  Iterator LowerBound(Address key) const {
    const size_t leaf = LeafFor(key);
    if (leaf == leaves_.size()) return end();
    const Leaf& l = *leaves_[leaf];
    return {this, leaf, uint32_t(std::lower_bound(l.keys, l.keys + l.size, key) - l.keys)};
  }
  // The first key > `key`.
  Iterator UpperBound(Address key) const {
    Iterator it = LowerBound(key);
    if (it != end() && *it == key) ++it;
    return it;
  }

  // Returns whether `key` was not in the set.
  bool Insert(Address key) {
    if (leaves_.empty()) {
      leaves_.push_back(std::make_unique<Leaf>());
      lasts_.push_back(key);
    }
    size_t leaf = std::min(LeafFor(key), leaves_.size() - 1);  // past every key: the last leaf
    Leaf* l = leaves_[leaf].get();
    Address* at = std::lower_bound(l->keys, l->keys + l->size, key);
    if (at != l->keys + l->size && *at == key) return false;
    if (l->size == kLeafKeys) {
      Split(leaf);
      if (key > lasts_[leaf]) l = leaves_[++leaf].get();
      at = std::lower_bound(l->keys, l->keys + l->size, key);
    }
    std::copy_backward(at, l->keys + l->size, l->keys + l->size + 1);
    *at = key;
    ++l->size;
    lasts_[leaf] = l->keys[l->size - 1];
    ++size_;
    return true;
  }

  // Returns whether `key` was in the set.
  bool Erase(Address key) {
    const size_t leaf = LeafFor(key);
    if (leaf == leaves_.size()) return false;
    Leaf* l = leaves_[leaf].get();
    Address* at = std::lower_bound(l->keys, l->keys + l->size, key);
    if (at == l->keys + l->size || *at != key) return false;
    std::copy(at + 1, l->keys + l->size, at);
    --l->size;
    --size_;
    if (l->size == 0) {
      leaves_.erase(leaves_.begin() + ptrdiff_t(leaf));
      lasts_.erase(lasts_.begin() + ptrdiff_t(leaf));
      return true;
    }
    lasts_[leaf] = l->keys[l->size - 1];
    // A leaf gone thin takes in its right neighbour when both fit in one,
    // so that the leaves stay at least a quarter full on average.
    if (l->size < kLeafKeys / 4 && leaf + 1 < leaves_.size() && l->size + leaves_[leaf + 1]->size <= kLeafKeys / 2)
      JoinNext(leaf);
    return true;
  }

  size_t HeapBytes() const {
    return memory::Buffer(lasts_) + memory::Buffer(leaves_) + leaves_.size() * memory::Chunk(sizeof(Leaf));
  }

 private:
  // The first leaf whose last key is >= `key`; leaves_.size() if none. A
  // carve, a merge or a free walks a few neighbouring starts, so the leaf
  // found last is asked first.
  size_t LeafFor(Address key) const {
    const size_t f = finger_;
    if (f < lasts_.size() && key <= lasts_[f] && (f == 0 || key > lasts_[f - 1])) return f;
    finger_ = size_t(std::lower_bound(lasts_.begin(), lasts_.end(), key) - lasts_.begin());
    return finger_;
  }

  void Split(size_t leaf) {
    Leaf& l = *leaves_[leaf];
    auto right = std::make_unique<Leaf>();
    right->size = l.size / 2;
    l.size -= right->size;
    std::copy(l.keys + l.size, l.keys + l.size + right->size, right->keys);
    lasts_[leaf] = l.keys[l.size - 1];
    lasts_.insert(lasts_.begin() + ptrdiff_t(leaf) + 1, right->keys[right->size - 1]);
    leaves_.insert(leaves_.begin() + ptrdiff_t(leaf) + 1, std::move(right));
  }

  void JoinNext(size_t leaf) {
    Leaf& l = *leaves_[leaf];
    const Leaf& next = *leaves_[leaf + 1];
    std::copy(next.keys, next.keys + next.size, l.keys + l.size);
    l.size += next.size;
    lasts_[leaf] = l.keys[l.size - 1];
    leaves_.erase(leaves_.begin() + ptrdiff_t(leaf) + 1);
    lasts_.erase(lasts_.begin() + ptrdiff_t(leaf) + 1);
  }

  std::vector<Address> lasts_;                // each leaf's largest key, ascending
  std::vector<std::unique_ptr<Leaf>> leaves_;  // none empty
  size_t size_ = 0;
  mutable size_t finger_ = 0;  // the leaf LeafFor found last: a hint, checked before use
};

}  // namespace streamcheck
