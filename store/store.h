// The findings store: one SQLite database (WAL) that `run`, `replay` and `lint`
// write and `report`/`merge` read. Schema and migrations: store/migrations.cpp,
// documented in docs/SCHEMA.md.
//
// Writers never throw: a failed write returns -1/false and keeps the message in
// last_error(), because the tracer writes from inside the user's process and
// must not take it down.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "runtime/finding.h"

// The top-level CMakeLists defines it for every target; a stray build without
// it still compiles.
#ifndef STREAMCHECK_VERSION
#define STREAMCHECK_VERSION "unknown"
#endif

namespace streamcheck::store {

class Database;

struct RunInfo {
  std::string mode;     // "run", "replay" or "lint"
  std::string command;  // the command line analysed (or the lint inputs)
  std::string host;
  std::string gpu;      // e.g. "NVIDIA H100 80GB HBM3"; empty for lint
  std::string tool_version = STREAMCHECK_VERSION;
  int64_t start_time_ns = 0;  // Unix epoch; 0 = now
};

struct ProcessInfo {
  int64_t pid = 0;
  std::string command;
  std::string host;
  int32_t rank = -1;  // distributed rank when known
};

struct OpenOptions {
  bool read_only = false;  // readers: never creates or migrates the file
  bool create_if_missing = true;
  // Run PRAGMA quick_check first (report/merge): corruption is reported up
  // front instead of as a half-printed report.
  bool check_integrity = false;
  // How long a write waits for another writer's lock before failing.
  int busy_timeout_ms = 5000;
};

class Store {
 public:
  // Creates the file when missing (unless read_only) and migrates an older
  // schema. Returns nullptr with a readable `error` for a file that is not a
  // streamcheck database, is corrupt, is locked, or was written by a newer
  // streamcheck; such a file is left exactly as it was.
  static std::unique_ptr<Store> Open(const std::string& path, std::string* error,
                                     const OpenOptions& options = {});
  // An input of report, merge or baseline: read-only, never created, migrated
  // or otherwise changed (a CI artifact may not even be writable: a read-only
  // folder or mount is read as it is), and refused when damaged.
  static std::unique_ptr<Store> OpenExisting(const std::string& path, std::string* error);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Returns the new run's id, or -1 on failure (see last_error()).
  int64_t BeginRun(const RunInfo& run);
  // end_time is taken now. Returns false on failure.
  bool EndRun(int64_t run, int exit_status);
  // Returns the process id in the store (not the pid), or -1 on failure.
  int64_t AddProcess(int64_t run, const ProcessInfo& process);

  // Counters that tell how complete a run's analysis was, added to any value
  // already stored under the same (run, process, category, name). Categories in
  // use: "stats" (EngineStats fields), "unmodeled_api" (by API name),
  // "anomaly" (by reason). `process` may be 0 for run-wide counters.
  bool AddCounters(int64_t run, int64_t process, std::string_view category,
                   const std::map<std::string, uint64_t>& counts);

  // Folders whose files an HTML report of the run may quote (the run's
  // working directory, the folders of the program's own source files);
  // adding one twice keeps one.
  bool AddSourceRoots(int64_t run, const std::set<std::string>& paths);

  // Inserts one finding directly; returns its row id or -1. The sink uses it;
  // so does `merge`.
  int64_t AddFinding(int64_t run, int64_t process, uint64_t local_id, const Finding& finding);
  bool SetFindingCount(int64_t run, int64_t process, uint64_t local_id, uint64_t count);

  // Runs `writes` (calls of this store) in one transaction: all or none.
  // False when one failed or the lock was not had (last_error()).
  bool InOneTransaction(const std::function<bool()>& writes);

  const std::string& path() const;
  const std::string& last_error() const;
  // Whether the last failure was another process's lock held longer than
  // the busy timeout (the write may succeed later), not a failure that stays.
  bool locked_out() const { return locked_out_; }
  int busy_timeout_ms() const { return busy_timeout_ms_; }
  // Writes that failed since Open (e.g. the file was locked too long), so
  // `run` can warn that findings were not stored.
  uint64_t failed_writes() const { return failed_writes_; }
  Database& database();  // for the readers in store/reader.h

 private:
  Store(std::string path, std::unique_ptr<Database> db);
  bool Fail(std::string message);

  std::string path_;
  std::unique_ptr<Database> db_;
  std::string last_error_;
  uint64_t failed_writes_ = 0;
  bool locked_out_ = false;
  int busy_timeout_ms_ = 5000;
};

}  // namespace streamcheck::store
