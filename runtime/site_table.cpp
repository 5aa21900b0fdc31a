#include "runtime/site_table.h"

namespace streamcheck {

size_t SiteTable::Hash(const Site& s) {
  uint64_t h = s.api;
  h = h * 0x9E3779B97F4A7C15ull ^ s.name;
  h = h * 0x9E3779B97F4A7C15ull ^ s.framework_op;
  h = h * 0x9E3779B97F4A7C15ull ^ s.stack;
  h = h * 0x9E3779B97F4A7C15ull ^ s.thread;
  h *= 0x9E3779B97F4A7C15ull;
  return static_cast<size_t>(h ^ (h >> 29));
}

uint32_t SiteTable::Intern(const Site& site) {
  if (site == Site{}) return 0;
  const size_t mask = slots_.size() - 1;
  for (size_t i = Hash(site) & mask;; i = (i + 1) & mask) {
    const uint32_t id = slots_[i];
    if (id == 0) break;
    if (sites_[id] == site) return id;
  }
  if ((sites_.size() + 1) * 4 > slots_.size() * 3) Grow();
  const uint32_t id = static_cast<uint32_t>(sites_.size());
  sites_.push_back(site);
  const size_t grown_mask = slots_.size() - 1;
  size_t i = Hash(site) & grown_mask;
  while (slots_[i] != 0) i = (i + 1) & grown_mask;
  slots_[i] = id;
  return id;
}

void SiteTable::Grow() {
  slots_.assign(slots_.size() * 2, 0);
  const size_t mask = slots_.size() - 1;
  for (uint32_t id = 1; id < sites_.size(); ++id) {
    size_t i = Hash(sites_[id]) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = id;
  }
}

}  // namespace streamcheck
