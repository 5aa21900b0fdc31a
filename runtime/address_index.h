// Open-addressing hash index from an address to a pointer, for the shadow
// memory's hot path: an access that covers exactly one known interval costs
// one probe instead of a walk down a balanced tree (which, with 100k live
// buffers, is a cache miss per level). Linear probing with backward-shift
// deletion, so there are no tombstones and probe chains stay short.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/ids.h"

namespace streamcheck {

template <typename T>
class AddressIndex {
 public:
  AddressIndex() { slots_.resize(kInitialSlots); }

  T* Find(Address key) const {
    for (size_t i = Home(key);; i = Next(i)) {
      const Slot& s = slots_[i];
      if (s.key == key) return s.value;
      if (s.key == kEmpty) return nullptr;
    }
  }

  // Starts loading the cache line where `key`'s probe begins.
  void PrefetchSlot(Address key) const { __builtin_prefetch(&slots_[Home(key)]); }

  void Set(Address key, T* value) {
    if ((size_ + 1) * 4 > slots_.size() * 3) Grow();
    for (size_t i = Home(key);; i = Next(i)) {
      Slot& s = slots_[i];
      if (s.key == key) {
        s.value = value;
        return;
      }
      if (s.key == kEmpty) {
        s = {key, value};
        ++size_;
        return;
      }
    }
  }

  void Erase(Address key) {
    size_t i = Home(key);
    for (;; i = Next(i)) {
      if (slots_[i].key == kEmpty) return;
      if (slots_[i].key == key) break;
    }
    // Backward shift: move later members of the probe chain into the hole.
    size_t hole = i;
    for (size_t j = Next(i);; j = Next(j)) {
      if (slots_[j].key == kEmpty) break;
      const size_t home = Home(slots_[j].key);
      // Can slot j move to `hole`? Only if its home is not in (hole, j].
      const bool between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
      if (!between) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole] = {kEmpty, nullptr};
    --size_;
  }

  size_t size() const { return size_; }

 private:
  static constexpr Address kEmpty = ~Address{0};
  static constexpr size_t kInitialSlots = 1024;
  struct Slot {
    Address key = kEmpty;
    T* value = nullptr;
  };

  size_t Home(Address key) const {
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(h >> 17) & (slots_.size() - 1);
  }
  size_t Next(size_t i) const { return (i + 1) & (slots_.size() - 1); }

  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.size() * 2, Slot{});
    size_ = 0;
    for (const Slot& s : old)
      if (s.key != kEmpty) Set(s.key, s.value);
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace streamcheck
