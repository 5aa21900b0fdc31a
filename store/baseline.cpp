#include "store/baseline.h"

#include <algorithm>

namespace streamcheck::store {

bool LoadBaselineFingerprints(const std::string& path, std::set<std::string>* fingerprints,
                              std::string* error) {
  OpenOptions options;
  options.read_only = true;
  options.create_if_missing = false;
  std::unique_ptr<Store> store = Store::Open(path, error, options);
  if (!store) return false;
  return ReadFingerprints(*store, fingerprints, error);
}

std::vector<StoredFinding> NewSinceBaseline(std::vector<StoredFinding> findings,
                                            const std::set<std::string>& baseline) {
  std::erase_if(findings, [&](const StoredFinding& f) {
    return baseline.count(f.finding.fingerprint) != 0;
  });
  return findings;
}

}  // namespace streamcheck::store
