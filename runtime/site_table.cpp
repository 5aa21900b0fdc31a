#include "runtime/site_table.h"

namespace streamcheck {

uint32_t SiteTable::Add(const Site& site) {
  if (site == Site{}) return 0;
  if ((sites_.size() + 1) * 4 > slots_.size() * 3) Grow();
  const uint32_t id = static_cast<uint32_t>(sites_.size());
  sites_.push_back(site);
  const size_t grown_mask = slots_.size() - 1;
  size_t i = Hash(site) & grown_mask;
  while (slots_[i].id != 0) i = (i + 1) & grown_mask;
  slots_[i] = {site, id};
  return id;
}

void SiteTable::Grow() {
  slots_.assign(slots_.size() * 2, Slot{});
  const size_t mask = slots_.size() - 1;
  for (uint32_t id = 1; id < sites_.size(); ++id) {
    size_t i = Hash(sites_[id]) & mask;
    while (slots_[i].id != 0) i = (i + 1) & mask;
    slots_[i] = {sites_[id], id};
  }
}

}  // namespace streamcheck
