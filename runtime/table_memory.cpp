#include "runtime/table_memory.h"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace streamcheck {
namespace {

constexpr size_t kCacheLine = 64;
constexpr size_t kHugePage = size_t{2} << 20;
// Below this a table fits in few enough pages that the TLB covers it.
constexpr size_t kHugePageThreshold = 2 * kHugePage;

}  // namespace

#if defined(__linux__) && defined(MADV_HUGEPAGE)

namespace {
// Whole huge pages, so that both ends of the mapping are page aligned.
size_t MappedLength(size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }
}  // namespace

void* AllocateTableMemory(size_t bytes) {
  if (bytes < kHugePageThreshold) return ::operator new(bytes, std::align_val_t{kCacheLine});
  // Map one huge page more than needed, then trim to a 2 MiB aligned range.
  const size_t length = MappedLength(bytes);
  const size_t mapped = length + kHugePage;
  void* raw = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
  if (aligned > start) munmap(raw, aligned - start);
  const uintptr_t end = aligned + length;
  if (start + mapped > end) munmap(reinterpret_cast<void*>(end), start + mapped - end);
  void* memory = reinterpret_cast<void*>(aligned);
  madvise(memory, length, MADV_HUGEPAGE);  // only advice: failure leaves normal pages
  return memory;
}

void ReleaseTableMemory(void* memory, size_t bytes) {
  if (bytes < kHugePageThreshold) {
    ::operator delete(memory, std::align_val_t{kCacheLine});
    return;
  }
  munmap(memory, MappedLength(bytes));
}

#else

void* AllocateTableMemory(size_t bytes) { return ::operator new(bytes, std::align_val_t{kCacheLine}); }
void ReleaseTableMemory(void* memory, size_t bytes) {
  ::operator delete(memory, std::align_val_t{kCacheLine});
}

#endif

}  // namespace streamcheck
