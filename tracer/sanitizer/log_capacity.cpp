#include "tracer/sanitizer/log_capacity.h"

#include <algorithm>

#include "tracer/sanitizer/device_summary_layout.h"

namespace streamcheck::tracer::precise {

uint32_t ClampedCapacity(double n) {
  uint32_t p = kMinSegmentCapacity;
  while (p < n && p < kMaxSegmentCapacity) p <<= 1;
  return p;
}

uint32_t FirstLaunchCapacity(uint64_t blocks, uint64_t block_threads) {
  const uint64_t warps = blocks * ((block_threads + 31) / 32);
  const uint64_t segments = std::clamp<uint64_t>(blocks, 1, kSegments);
  const double per_segment = static_cast<double>(warps) * kRangesPerWarp / static_cast<double>(segments) * 2;
  return std::min(kFirstLaunchCapacity, ClampedCapacity(per_segment));
}

uint32_t RegrownCapacity(double ranges_per_thread, uint64_t threads) {
  return ClampedCapacity(ranges_per_thread * static_cast<double>(threads) * 2);
}

bool WaitsForSlot(size_t pinned_bytes, size_t wanted_bytes, size_t slots_in_flight) {
  return slots_in_flight > 0 && pinned_bytes + wanted_bytes > kPinnedBudgetBytes;
}

}  // namespace streamcheck::tracer::precise
