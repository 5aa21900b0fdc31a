// `streamcheck merge`: copies the runs, processes, findings and counters of
// several stores (one per process or rank) into one. Each input is copied in
// one transaction, so a failure leaves the output as it was before that input.
// Nothing is copied twice: a run the output already has (the same start time,
// mode, command, host and version: a copied file, an input given twice, a
// merge done before) is joined, adding only the findings (by process and the
// engine's id), counters and end it lacks.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "store/store.h"

namespace streamcheck::store {

// A finding row without a rule gives only the count of a finding the output
// has already (a pending file's: store/pending_writes.h): merge raises that
// finding's count and adds no such row.
inline constexpr const char* kCountOnlyRule = "";

struct MergeStats {
  int runs = 0;  // copied
  int processes = 0;
  int findings = 0;
  int runs_already_there = 0;  // joined instead
  int findings_already_there = 0;
  MergeStats& operator+=(const MergeStats& o) {
    runs += o.runs, processes += o.processes, findings += o.findings;
    runs_already_there += o.runs_already_there, findings_already_there += o.findings_already_there;
    return *this;
  }
};

bool MergeInto(Store& out, Store& in, MergeStats* stats, std::string* error);

// `streamcheck merge`: merges `inputs` into `output` (created when missing)
// and returns the exit code (0, or 2 with the reason on `err`). All inputs or
// none: a failure leaves the output as it was (and removes it when this call
// created it).
int RunMerge(const std::string& output, const std::vector<std::string>& inputs, std::ostream& err,
             int busy_timeout_ms = 5000);

}  // namespace streamcheck::store
