// One run's outputs, the same for `run` (the tracer inside each traced
// process), `replay` and `lint`: the database opened (or none), the run begun
// or joined, a process row per analysed process, the suppressions loaded once,
// the chain every finding passes (suppressions, then the database, then the
// caller's own sink), and at the end the counters (store/counters.def), whose
// meaning is therefore the same whoever wrote them.
//
// Nothing here throws or exits: the tracer runs inside the user's program.
// Write failures are counted and the first one kept, so callers say exactly
// what was stored.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/engine.h"
#include "runtime/finding.h"
#include "store/pending_writes.h"
#include "store/reader.h"
#include "store/store.h"
#include "store/suppressions.h"

namespace streamcheck::store {

// The counter categories and stats names, from the one list.
namespace counters {
#define STREAMCHECK_COUNTER_CATEGORY(constant, name, meaning) inline constexpr std::string_view constant = name;
#define STREAMCHECK_STAT(constant, name, meaning) inline constexpr std::string_view constant = name;
#define STREAMCHECK_HOST_THREADS_COUNTER(constant, name, meaning) inline constexpr std::string_view constant = name;
#define STREAMCHECK_HOST_GUARDS_COUNTER(constant, name, meaning) inline constexpr std::string_view constant = name;
#include "store/counters.def"
}  // namespace counters

struct CounterDoc {
  std::string_view category;  // empty for a category itself
  std::string_view name;
  std::string_view meaning;
};
// Every category and stats name with its meaning, in the list's order.
const std::vector<CounterDoc>& DocumentedCounters();

// This machine's name, as runs and processes record it ("" when unknown).
std::string HostName();

struct SessionConfig {
  std::string db_path;  // empty: no database (replay --no-db, lint without --db)
  RunInfo run;          // mode and command; an empty host is filled in
  // A run begun elsewhere to join (the tracer under `streamcheck run`);
  // -1: begin one. The session ends only a run it began.
  int64_t existing_run = -1;
  std::string suppressions_path;  // empty: none
  // Files the command reads (replay's traces): the database may be none of
  // them, nor may they be its -wal, -shm or -journal (nor the suppressions).
  std::vector<std::string> input_paths;
  OpenOptions open;
  // The tracer's way: an unreadable suppressions file or database is a
  // warning (warnings()) and the session goes on without it. Otherwise Open
  // fails.
  bool best_effort = false;
  // Whether the files the findings' frames name are the program's own
  // sources (run: the program's debug information; lint: its inputs), so
  // their folders become source roots of the run beside the working
  // directory (html_report.h). Not for replay: a trace is only data.
  bool frames_name_sources = false;
};

// What became of one process's findings (or a whole session's).
struct FindingTally {
  uint64_t found = 0;                   // distinct findings the analysis reported
  uint64_t suppressed = 0;              // of those, dropped by a suppression
  uint64_t suppressed_occurrences = 0;
  uint64_t kept = 0;                    // found - suppressed
  uint64_t occurrences = 0;             // how often the kept ones were seen
  uint64_t stored = 0;                  // kept findings committed to the database
  FindingTally& operator+=(const FindingTally& other);
};

class RunSession;

// The sink an engine (or the lint) gives its findings to. Also counts.
class ProcessOutput final : public FindingSink {
 public:
  void OnFinding(uint64_t local_id, const Finding& finding) override;
  void OnFindingCount(uint64_t local_id, uint64_t count) override;
  // Whether the finding with this id was dropped by a suppression.
  bool WasSuppressed(uint64_t local_id) const { return counts_.count(local_id) && counts_.at(local_id).suppressed; }
  const FindingTally& tally() const { return tally_; }
  int64_t process_id() const { return process_.id; }  // in the store; 0: none

 private:
  friend class RunSession;
  ProcessOutput(RunSession* session, size_t index, PendingWrites::Process process, FindingSink* also)
      : session_(session), index_(index), process_(std::move(process)), also_(also) {}
  struct Seen {
    uint64_t count = 0;
    bool suppressed = false;
  };
  RunSession* session_;
  size_t index_;                     // in the session's outputs
  PendingWrites::Process process_;  // its row (id 0: none)
  FindingSink* also_;
  std::unordered_map<uint64_t, Seen> counts_;
  FindingTally tally_;
  bool finished_ = false;
};

class RunSession {
 public:
  // nullptr with `error` set when the suppressions or the database cannot be
  // used (unless best_effort), or the run cannot be begun.
  static std::unique_ptr<RunSession> Open(const SessionConfig& config, std::string* error);
  ~RunSession();
  RunSession(const RunSession&) = delete;
  RunSession& operator=(const RunSession&) = delete;

  // A process's findings: `info` becomes a process row (none when nullopt:
  // the lint's findings belong to the run). `also` gets every kept finding
  // after the database did. The output lives as long as the session.
  ProcessOutput* AddProcess(const std::optional<ProcessInfo>& info, FindingSink* also = nullptr);
  // Writes the process's counters: the engine's (when given) and the tally.
  // Once per process; later calls do nothing.
  void FinishProcess(ProcessOutput* output, const EngineStats* stats);
  // Counters of the process that only its writer knows (the tracer's
  // "host_threads", "host_guards"), by a category of store/counters.def.
  void AddCounters(ProcessOutput* output, std::string_view category, const std::map<std::string, uint64_t>& counts);
  // Writes what a lock kept out (waiting up to the busy timeout once), or,
  // the database still locked, keeps it in a pending file beside it
  // (store/pending_writes.h). FinishProcess and End settle too.
  void Settle();
  // Records the run's end (only for a run this session began), folding in
  // first what other processes of the run kept beside the database.
  void End(int exit_status);

  bool has_store() const { return store_ != nullptr; }
  Store* store() { return store_.get(); }
  int64_t run_id() const { return run_; }
  const std::string& db_path() const { return config_.db_path; }
  const SuppressionList* suppressions() const { return suppressions_ ? &*suppressions_ : nullptr; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  // The tally over every process.
  FindingTally total() const;
  // Database writes that failed (findings, counters, rows), and the first
  // failure's message.
  uint64_t failed_writes() const { return failed_writes_; }
  const std::string& first_error() const { return first_error_; }
  // Findings a lock kept out of the database that wait in pending files
  // beside it, and those files.
  uint64_t findings_kept_beside() const { return findings_kept_beside_; }
  const std::vector<std::string>& pending_files() const { return pending_files_; }
  // One sentence on what did not reach the database: the run's findings that
  // wait in pending files beside it now (its own, or its traced processes'
  // that a lock kept from being folded in), and failed writes; "" when
  // everything did.
  std::string UnstoredSummary() const;

 private:
  friend class ProcessOutput;
  explicit RunSession(SessionConfig config) : config_(std::move(config)) {}
  bool Write(bool ok);  // counts a failed write
  void NoteSourceFolders(const Finding& finding);
  // The writes of a process's output: into the database, or, while another
  // process's lock keeps them out, into pending_ (true: stored now).
  bool StoreFinding(ProcessOutput* output, uint64_t local_id, const Finding& finding);
  void StoreCount(ProcessOutput* output, uint64_t local_id, uint64_t count);
  void StoreCounters(ProcessOutput* output, std::string_view category, const std::map<std::string, uint64_t>& counts);
  // Writes pending_, waiting for the lock up to the busy timeout or not at all.
  void WritePending(bool wait);
  // Folds in the pending files of the run's processes (and of earlier runs),
  // trying `attempts` times while a lock keeps them out.
  void FoldWhatWasKeptBeside(int attempts = 1);

  SessionConfig config_;
  std::unique_ptr<Store> store_;
  std::optional<SuppressionList> suppressions_;
  int64_t run_ = -1;
  bool began_run_ = false;
  std::vector<std::unique_ptr<ProcessOutput>> outputs_;
  std::vector<std::string> warnings_;
  std::set<std::string> source_roots_;
  uint64_t failed_writes_ = 0;
  std::string first_error_;
  StoredRun run_row_;  // the run as the database has it, for pending files
  PendingWrites pending_;
  uint64_t findings_kept_beside_ = 0;
  std::vector<std::string> pending_files_;
};

// The stats counters of one process: the engine's figures (when given) and
// what became of its findings.
std::map<std::string, uint64_t> StatsCounters(const EngineStats* stats, const FindingTally& tally);

}  // namespace streamcheck::store
