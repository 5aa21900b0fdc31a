#include "runtime/site_table.h"

namespace streamcheck {

uint32_t SiteTable::Intern(const Site& site) {
  if (site == Site{}) return 0;
  auto [it, inserted] = ids_.try_emplace(site, static_cast<uint32_t>(sites_.size()));
  if (inserted) sites_.push_back(site);
  return it->second;
}

}  // namespace streamcheck
