// Open-addressing hash map from an address to a value stored in the slot,
// for hot lookups: shadow intervals by start address (the interval itself
// lives in the slot, so an access costs one cache miss, not a walk down a
// balanced tree) and streams by handle. Linear probing with backward-shift
// deletion: no tombstones, short probe chains. Values move on Set (growth)
// and Erase, so pointers from Find stay valid only until the next change.
// Slots come from table memory (table_memory.h): a 64-byte slot is exactly
// one cache line, and big tables sit on huge pages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "runtime/ids.h"
#include "runtime/prefetch.h"
#include "runtime/table_memory.h"

namespace streamcheck {

template <typename V>
class AddressMap {
 public:
  AddressMap() : slots_(kInitialSlots), mask_(kInitialSlots - 1) {}

  V* Find(Address key) {
    for (size_t i = Home(key);; i = Next(i)) {
      Slot& s = slots_[i];
      if (s.key == key) return &s.value;
      if (s.key == kEmpty) return nullptr;
    }
  }
  const V* Find(Address key) const { return const_cast<AddressMap*>(this)->Find(key); }

  // Starts loading the cache line where `key`'s probe begins.
  void Prefetch(Address key) const { PrefetchLine(slots_.data() + Home(key)); }

  // Inserts or replaces; returns the stored value.
  V& Set(Address key, V value) {
    if ((size_ + 1) * 4 > slots_.size() * 3) Grow();
    for (size_t i = Home(key);; i = Next(i)) {
      Slot& s = slots_[i];
      if (s.key == key) {
        s.value = std::move(value);
        return s.value;
      }
      if (s.key == kEmpty) {
        s.key = key;
        s.value = std::move(value);
        ++size_;
        return s.value;
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
    for (size_t j = Next(i); slots_[j].key != kEmpty; j = Next(j)) {
      const size_t home = Home(slots_[j].key);
      // Slot j may move to `hole` only if its home is not in (hole, j].
      const bool home_between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
      if (!home_between) {
        slots_[hole] = std::move(slots_[j]);
        hole = j;
      }
    }
    slots_[hole].key = kEmpty;
    slots_[hole].value = V{};
    --size_;
  }

  size_t size() const { return size_; }

 private:
  static constexpr Address kEmpty = ~Address{0};
  static constexpr size_t kInitialSlots = 1024;
  struct Slot {
    Address key = kEmpty;
    V value{};
  };

  size_t Home(Address key) const {
    const uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(h >> 17) & mask_;
  }
  size_t Next(size_t i) const { return (i + 1) & mask_; }

  void Grow() {
    Slots old = std::move(slots_);
    slots_ = Slots(old.size() * 2);
    mask_ = slots_.size() - 1;
    size_ = 0;
    for (Slot& s : old)
      if (s.key != kEmpty) Set(s.key, std::move(s.value));
  }

  using Slots = std::vector<Slot, TableAllocator<Slot>>;
  Slots slots_;
  size_t mask_;  // slots_.size() - 1, kept: saves a division per probe
  size_t size_ = 0;
};

}  // namespace streamcheck
