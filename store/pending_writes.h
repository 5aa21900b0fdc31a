// Writes that another process's lock kept out of the database for longer than
// the busy timeout: findings (with their later counts), counts of findings
// already stored, counters, source roots and the run's end. They wait here and go in, in
// one transaction, as soon as the lock is free. What a lock still keeps out
// when a process or the run ends goes to a pending file beside the database
// (DB.pending-PID-N): a streamcheck database of its own that holds the run as
// the database knows it (its start time, mode, command, host, version), the
// processes and the writes, which the next writer of DB folds in as merge
// joins a run it already has (store/merge.h): only what the run lacks. So a
// lock never loses a finding.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/finding.h"
#include "store/merge.h"
#include "store/reader.h"
#include "store/store.h"

namespace streamcheck::store {

class PendingWrites {
 public:
  struct Process {
    int64_t id = 0;  // in the database; 0: none
    ProcessInfo info;
  };

  // `owner` is the caller's (RunSession: which process output), handed back
  // by WriteTo with how many of its findings went in.
  void AddFinding(size_t owner, const Process& process, uint64_t local_id, const Finding& finding);
  // The later count of a finding: kept with it when it waits here (true).
  bool UpdatePendingCount(int64_t process, uint64_t local_id, uint64_t count);
  void AddCount(const Process& process, uint64_t local_id, uint64_t count);
  void AddCounters(const Process& process, std::string category, const std::map<std::string, uint64_t>& counts);
  void AddSourceRoots(const std::set<std::string>& paths) { roots_.insert(paths.begin(), paths.end()); }
  void EndRun(int exit_status) { end_status_ = exit_status; }

  // Forgets everything (what could be kept nowhere: the caller counts it lost).
  void Clear();
  bool empty() const {
    return findings_.empty() && counts_.empty() && counters_.empty() && roots_.empty() && !end_status_;
  }
  uint64_t findings() const { return findings_.size(); }

  // Writes everything into `run` in one transaction, waiting for the lock
  // no longer than `busy_timeout_ms`. On success clears and returns how many
  // findings of each owner went in; nullopt, keeping everything, when the
  // write failed (Store::locked_out() says whether a lock was why).
  std::optional<std::map<size_t, uint64_t>> WriteTo(Store& store, int64_t run, int busy_timeout_ms);
  // Writes everything into a new pending file beside `db_path` as a run like
  // `run` and clears. The file's path, or "" with `error` (kept then).
  std::string Spill(const std::string& db_path, const StoredRun& run, std::string* error);

 private:
  struct PendingFinding {
    size_t owner;
    Process process;
    uint64_t local_id;
    Finding finding;
  };
  struct PendingCount {
    Process process;
    uint64_t local_id;
    uint64_t count;
  };
  struct PendingCounters {
    Process process;
    std::string category;
    std::map<std::string, uint64_t> counts;
  };
  std::vector<PendingFinding> findings_;
  std::vector<PendingCount> counts_;
  std::vector<PendingCounters> counters_;
  std::set<std::string> roots_;
  std::optional<int> end_status_;
  int spills_ = 0;
};

// The pending files beside the database at `db_path`, oldest first.
std::vector<std::string> PendingFiles(const std::string& db_path);

// The findings of `run` (by its identity, as merge joins runs) that the
// pending files among `files` hold, and those files (in `holding`).
uint64_t FindingsOfRunIn(const std::vector<std::string>& files, const StoredRun& run, std::vector<std::string>* holding);

// Folds the pending files beside `store`'s database into it, each in one
// transaction as merge joins a run, and removes each once folded. Returns
// the number of findings added; a file that could not be folded stays, and
// `error` says why.
uint64_t FoldPendingFiles(Store& store, std::string* error);

}  // namespace streamcheck::store
