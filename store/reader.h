// Reading a store back: runs, processes, findings (as the runtime's Finding,
// plus where in the store it came from) and counters. Report, merge and
// baseline are built on these.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/finding.h"
#include "store/store.h"

namespace streamcheck::store {

class Statement;

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
  // The same race found by several ranks of one run (findings of processes
  // with a rank, the same run and fingerprint) comes as one stretch, where
  // its first member would come in id order, for RankFolder
  // (report_model.h) to fold as the findings stream past. SQLite sorts
  // these (in bounded memory); a selection with no rank reads in id order.
  bool ranks_together = false;
  // report --group-by test: findings come ordered by their test (the scope
  // of the later access, docs/SCOPES.md), those outside every scope last,
  // in the order above within a test.
  bool by_test = false;
};

// Each returns false and sets `error` when the database cannot be read.
bool ReadRuns(Store& store, std::vector<StoredRun>* runs, std::string* error);
bool ReadProcesses(Store& store, int64_t run, std::vector<StoredProcess>* processes,
                   std::string* error);
// Calls `visit` with each finding in id order (the order found; but see
// FindingQuery::ranks_together), one at a time: memory stays bounded whatever their number. `visit` returns false to
// stop early.
bool ForEachFinding(Store& store, const FindingQuery& query,
                    const std::function<bool(StoredFinding&)>& visit, std::string* error);
// All of them, ordered by id.
bool ReadFindings(Store& store, const FindingQuery& query, std::vector<StoredFinding>* findings,
                  std::string* error);
// category -> name -> value, summed over the run's processes.
bool ReadCounters(Store& store, int64_t run,
                  std::map<std::string, std::map<std::string, uint64_t>>* counters,
                  std::string* error);
// The source roots recorded for these runs (all runs when empty); none in a
// store older than schema 3.
bool ReadSourceRoots(Store& store, const std::vector<int64_t>& runs, std::set<std::string>* roots,
                     std::string* error);
// Every fingerprint in the store (all runs).
bool ReadFingerprints(Store& store, std::set<std::string>* fingerprints, std::string* error);
// Whether any finding of the store has this fingerprint (--baseline asks per
// finding, through the fingerprint index, so nothing grows with the baseline).
class FingerprintLookup {
 public:
  explicit FingerprintLookup(Store& store);
  ~FingerprintLookup();
  // nullopt when the store cannot be read (error()).
  std::optional<bool> Contains(const std::string& fingerprint);
  const std::string& error() const { return error_; }

 private:
  Store& store_;
  std::unique_ptr<Statement> query_;
  std::string error_;
};

}  // namespace streamcheck::store
