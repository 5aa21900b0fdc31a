// --baseline: keep only findings whose fingerprint an older store lacks, so CI
// fails on new races, not on ones already known.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "store/reader.h"

namespace streamcheck::store {

// Every fingerprint of the store at `path` (opened read-only, never changed).
bool LoadBaselineFingerprints(const std::string& path, std::set<std::string>* fingerprints,
                              std::string* error);

std::vector<StoredFinding> NewSinceBaseline(std::vector<StoredFinding> findings,
                                            const std::set<std::string>& baseline);

}  // namespace streamcheck::store
