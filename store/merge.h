// `streamcheck merge`: copies the runs, processes, findings and counters of
// several stores (one per process or rank) into one. Each input is copied in
// one transaction, so a failure leaves the output as it was before that input.
#pragma once

#include <string>

#include "store/store.h"

namespace streamcheck::store {

struct MergeStats {
  int runs = 0;
  int processes = 0;
  int findings = 0;
};

bool MergeInto(Store& out, Store& in, MergeStats* stats, std::string* error);

}  // namespace streamcheck::store
