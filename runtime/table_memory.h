// Memory for the engine's big open-addressed tables (the platform seam).
// Slots are cache-line aligned so a 64-byte slot is one cache line, not two
// (the default allocator only aligns to 16 bytes, so 3 of 4 slots straddled
// two lines). Tables of several megabytes are placed on 2 MiB boundaries and
// offered to transparent huge pages where the platform has them: a lookup at
// a random address then costs a cache miss but rarely also a page walk.
#pragma once

#include <cstddef>
#include <new>

namespace streamcheck {

// At least `bytes` bytes aligned to a cache line (64 bytes); throws
// std::bad_alloc on failure. Release with the same byte count.
void* AllocateTableMemory(size_t bytes);
void ReleaseTableMemory(void* memory, size_t bytes);

// std::allocator replacement for tables' slot vectors.
template <typename T>
struct TableAllocator {
  using value_type = T;
  TableAllocator() = default;
  template <typename U>
  TableAllocator(const TableAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(AllocateTableMemory(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { ReleaseTableMemory(p, n * sizeof(T)); }
  template <typename U>
  friend bool operator==(const TableAllocator&, const TableAllocator<U>&) {
    return true;
  }
};

}  // namespace streamcheck
