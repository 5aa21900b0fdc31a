// Open-addressing hash map from an address to a value stored in the slot,
// for hot lookups: shadow intervals by start address (the interval itself
// lives in the slot, so an access costs one cache miss, not a walk down a
// balanced tree) and streams by handle. Linear probing in Robin Hood order
// (a key never sits further from its home than the keys it passed), with
// backward-shift deletion: no tombstones, and a miss ends as soon as it meets
// a key closer to its home, so the table can be 80% full (half the cache
// footprint of 75%, which doubled 100k shadow intervals to 16 MiB) without
// misses scanning long clusters. Values move on Set and Erase, so pointers
// from Find stay valid only until the next change.
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
    for (size_t i = Home(key), dist = 0;; i = Next(i), ++dist) {
      Slot& s = slots_[i];
      if (s.key == key) return &s.value;
      if (s.key == kEmpty || Distance(s.key, i) < dist) return nullptr;
    }
  }
  const V* Find(Address key) const { return const_cast<AddressMap*>(this)->Find(key); }

  // Starts loading the cache lines where `key`'s probe begins: two, since at
  // 80% load a key is often one slot past its home.
  void Prefetch(Address key) const {
    const size_t home = Home(key);
    PrefetchLine(slots_.data() + home);
    PrefetchLine(slots_.data() + Next(home));
  }

  // Inserts or replaces; returns the stored value.
  V& Set(Address key, V value) {
    if (V* present = Find(key)) {
      *present = std::move(value);
      return *present;
    }
    if ((size_ + 1) * 5 > slots_.size() * 4) Grow();
    Slot carry{key, std::move(value)};
    V* placed = nullptr;  // where `key` went (slots do not move in this loop)
    for (size_t i = Home(key), dist = 0;; i = Next(i), ++dist) {
      Slot& s = slots_[i];
      if (s.key == kEmpty) {
        s = std::move(carry);
        ++size_;
        return placed ? *placed : s.value;
      }
      // Robin Hood: take the slot of a key closer to its home, then carry that one on.
      if (const size_t d = Distance(s.key, i); d < dist) {
        std::swap(s, carry);
        if (placed == nullptr) placed = &s.value;
        dist = d;
      }
    }
  }

  void Erase(Address key) {
    size_t i = Home(key);
    for (size_t dist = 0;; i = Next(i), ++dist) {
      if (slots_[i].key == kEmpty || Distance(slots_[i].key, i) < dist) return;
      if (slots_[i].key == key) break;
    }
    // Backward shift: the rest of the cluster moves one slot back, up to an
    // empty slot or a key at its home (which keeps the Robin Hood order).
    size_t hole = i;
    for (size_t j = Next(i); slots_[j].key != kEmpty && Distance(slots_[j].key, j) > 0; j = Next(j)) {
      slots_[hole] = std::move(slots_[j]);
      hole = j;
    }
    slots_[hole].key = kEmpty;
    slots_[hole].value = V{};
    --size_;
  }

  size_t size() const { return size_; }
  size_t HeapBytes() const { return slots_.capacity() * sizeof(Slot); }
  template <typename F>
  void ForEachValue(F f) const {
    for (const Slot& s : slots_)
      if (s.key != kEmpty) f(s.value);
  }

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
  // How far slot i is from the home of `key` (which sits in it).
  size_t Distance(Address key, size_t i) const { return (i - Home(key)) & mask_; }

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
