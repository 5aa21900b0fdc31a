// `streamcheck merge`: copies the runs, processes, findings and counters of
// several stores (one per process or rank) into one. Each input is copied in
// one transaction, so a failure leaves the output as it was before that input.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "store/store.h"

namespace streamcheck::store {

struct MergeStats {
  int runs = 0;
  int processes = 0;
  int findings = 0;
};

bool MergeInto(Store& out, Store& in, MergeStats* stats, std::string* error);

// `streamcheck merge`: merges `inputs` into `output` (created when missing)
// and returns the exit code (0, or 2 with the reason on `err`). All inputs or
// none: a failure leaves the output as it was (and removes it when this call
// created it).
int RunMerge(const std::string& output, const std::vector<std::string>& inputs, std::ostream& err,
             int busy_timeout_ms = 5000);

}  // namespace streamcheck::store
