// Reading a store back: runs, processes, findings (as the runtime's Finding,
// plus where in the store it came from) and counters. Report, merge and
// baseline are built on these.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/finding.h"
#include "store/store.h"

namespace streamcheck::store {

struct StoredRun {
  int64_t id = 0;
  RunInfo info;
  std::optional<int64_t> end_time_ns;  // unset while running or after a crash
  std::optional<int> exit_status;
};

struct StoredProcess {
  int64_t id = 0;
  int64_t run_id = 0;
  ProcessInfo info;
};

struct StoredFinding {
  int64_t id = 0;
  int64_t run_id = 0;
  int64_t process_id = 0;  // 0 = none (lint)
  uint64_t local_id = 0;
  std::string severity;  // "error" / "warning" / "note", fixed when written
  Finding finding;
  // The distributed ranks of the processes that reported it, ascending: its
  // process's rank when known (empty otherwise), several once
  // FoldAcrossRanks (report_model.h) joined the same race found on several
  // ranks. `host`: the (first) process's host, "" when unknown.
  std::vector<int32_t> ranks;
  std::string host;
};

struct FindingQuery {
  std::optional<int64_t> run;  // unset: every run
  std::string rule;            // empty: every rule
};

// Each returns false and sets `error` when the database cannot be read.
bool ReadRuns(Store& store, std::vector<StoredRun>* runs, std::string* error);
bool ReadProcesses(Store& store, int64_t run, std::vector<StoredProcess>* processes,
                   std::string* error);
// Ordered by id (the order found).
bool ReadFindings(Store& store, const FindingQuery& query, std::vector<StoredFinding>* findings,
                  std::string* error);
// category -> name -> value, summed over the run's processes.
bool ReadCounters(Store& store, int64_t run,
                  std::map<std::string, std::map<std::string, uint64_t>>* counters,
                  std::string* error);
// Every fingerprint in the store (all runs): what --baseline compares against.
bool ReadFingerprints(Store& store, std::set<std::string>* fingerprints, std::string* error);

}  // namespace streamcheck::store
