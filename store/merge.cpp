#include "store/merge.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>

#include "store/database.h"
#include "store/file_identity.h"
#include "store/pending_writes.h"
#include "store/reader.h"

namespace streamcheck::store {
namespace {

// Unlike BeginRun, keeps the end time and exit status the input recorded.
// -1 with `why` set on failure.
int64_t CopyRun(Database& db, const StoredRun& run, std::string* why) {
  Statement insert = db.Prepare(
      "INSERT INTO runs(mode, command, host, gpu, tool_version, start_time_ns, end_time_ns, "
      "exit_status) VALUES(?,?,?,?,?,?,?,?)");
  const RunInfo& r = run.info;
  insert.Bind(1, r.mode).Bind(2, r.command).Bind(3, r.host).Bind(4, r.gpu);
  insert.Bind(5, r.tool_version).Bind(6, r.start_time_ns);
  if (run.end_time_ns) insert.Bind(7, *run.end_time_ns); else insert.BindNull(7);
  if (run.exit_status) insert.Bind(8, int64_t{*run.exit_status}); else insert.BindNull(8);
  if (insert.Run()) return db.LastInsertId();
  *why = insert.error().empty() ? db.error() : insert.error();
  return -1;
}

int Fail(std::ostream& err, const std::string& message) {
  fmt::print(err, "streamcheck merge: {}\n", message);
  return 2;
}

// The same run in another database (a copy, an input given twice, a run
// merged before, a run's pending findings: store/pending_writes.h) has the
// same start time, mode, command, host and version. Its id there, or 0.
int64_t SameRunIn(Database& db, const StoredRun& run) {
  Statement q = db.Prepare(
      "SELECT id FROM runs WHERE start_time_ns = ? AND mode = ? AND command = ? AND host = ? AND tool_version = ? "
      "ORDER BY id LIMIT 1");
  q.Bind(1, run.info.start_time_ns).Bind(2, run.info.mode).Bind(3, run.info.command).Bind(4, run.info.host);
  q.Bind(5, run.info.tool_version);
  return q.Step() ? q.Int(0) : 0;
}

int64_t SameProcessIn(Database& db, int64_t run, const ProcessInfo& p) {
  Statement q = db.Prepare(
      "SELECT id FROM processes WHERE run_id = ? AND pid = ? AND command = ? AND host = ? AND rank = ? "
      "ORDER BY id LIMIT 1");
  q.Bind(1, run).Bind(2, p.pid).Bind(3, p.command).Bind(4, p.host).Bind(5, int64_t{p.rank});
  return q.Step() ? q.Int(0) : 0;
}

// A run joined: the end it lacked.
bool CompleteJoinedRun(Database& db, int64_t id, const StoredRun& run, std::string* why) {
  if (!run.end_time_ns) return true;
  Statement end = db.Prepare("UPDATE runs SET end_time_ns = ?, exit_status = ? WHERE id = ? AND end_time_ns IS NULL");
  end.Bind(1, *run.end_time_ns).Bind(3, id);
  if (run.exit_status) end.Bind(2, int64_t{*run.exit_status}); else end.BindNull(2);
  return end.Run() || (*why = end.error(), false);
}

// A run's counters, each process's to its process there (0, the run's own,
// stays 0). One the output has already (the same process wrote it, a run
// joined) is not added again.
bool CopyCounters(Database& in, int64_t run, Database& out, int64_t new_run,
                  const std::map<int64_t, int64_t>& process_ids, std::string* why) {
  Statement read = in.Prepare("SELECT process_id, category, name, value FROM counters WHERE run_id = ?");
  read.Bind(1, run);
  Statement add = out.Prepare("INSERT OR IGNORE INTO counters(run_id, process_id, category, name, value) "
                              "VALUES(?,?,?,?,?)");
  while (read.Step()) {
    const auto process = process_ids.find(read.Int(0));
    add.Reset();
    add.Bind(1, new_run).Bind(2, process == process_ids.end() ? 0 : process->second).Bind(3, read.Text(1));
    add.Bind(4, read.Text(2)).Bind(5, read.Int(3));
    if (!add.Run()) return *why = add.error(), false;
  }
  if (read.error().empty()) return true;
  *why = read.error();
  return false;
}

// The findings a joined run has: (process, local id) -> (row id, count).
using FindingKeys = std::map<std::pair<int64_t, uint64_t>, std::pair<int64_t, uint64_t>>;
void ReadFindingKeys(Database& db, int64_t run, FindingKeys* keys) {
  Statement q = db.Prepare("SELECT process_id, local_id, id, count FROM findings WHERE run_id = ?");
  q.Bind(1, run);
  while (q.Step())
    (*keys)[{q.IsNull(0) ? 0 : q.Int(0), static_cast<uint64_t>(q.Int(1))}] = {q.Int(2), static_cast<uint64_t>(q.Int(3))};
}

// The input's reads see one snapshot: a writer still adding runs and
// findings to it (a traced program) cannot hand merge a finding of a run
// it did not read.
class ReadSnapshot {
 public:
  explicit ReadSnapshot(Database& db) : db_(db), began_(db.Exec("BEGIN")) {}
  ~ReadSnapshot() {
    if (began_) db_.Exec("COMMIT");
  }

 private:
  Database& db_;
  bool began_;
};

}  // namespace

bool MergeInto(Store& out, Store& in, MergeStats* stats, std::string* error) {
  ReadSnapshot snapshot(in.database());
  std::vector<StoredRun> runs;
  if (!ReadRuns(in, &runs, error)) return false;

  Database& db = out.database();
  Transaction tx(db);
  auto fail = [&](const std::string& what) {
    *error = out.path() + ": merge of " + in.path() + " failed: " + what;
    return false;  // tx rolls back
  };
  if (!tx.ok()) return fail(db.error());

  std::map<int64_t, int64_t> run_ids, process_ids;  // input id -> output id
  std::map<int64_t, FindingKeys> joined;             // input run id -> what its output run has
  MergeStats counted;
  for (const StoredRun& run : runs) {
    std::string why;
    int64_t new_run = SameRunIn(db, run);
    if (new_run != 0) {
      ++counted.runs_already_there;
      if (!CompleteJoinedRun(db, new_run, run, &why)) return fail(why);
      ReadFindingKeys(db, new_run, &joined[run.id]);
    } else {
      new_run = CopyRun(db, run, &why);
      if (new_run < 0) return fail(why);
      ++counted.runs;
    }
    run_ids[run.id] = new_run;

    std::vector<StoredProcess> processes;
    if (!ReadProcesses(in, run.id, &processes, error)) return false;
    for (const StoredProcess& p : processes) {
      int64_t new_process = joined.count(run.id) ? SameProcessIn(db, new_run, p.info) : 0;
      if (new_process == 0) {
        new_process = out.AddProcess(new_run, p.info);
        if (new_process < 0) return fail(out.last_error());
        ++counted.processes;
      }
      process_ids[p.id] = new_process;
    }
    if (!CopyCounters(in.database(), run.id, db, new_run, process_ids, &why)) return fail(why);
    std::set<std::string> roots;
    if (!ReadSourceRoots(in, {run.id}, &roots, error)) return false;
    if (!out.AddSourceRoots(new_run, roots)) return fail(out.last_error());
  }
  // One finding at a time: memory does not grow with the input (only with
  // the keys of runs already there).
  std::string write_error;
  Statement raise = db.Prepare("UPDATE findings SET count = max(count, ?) WHERE id = ?");
  const bool read = ForEachFinding(
      in, {},
      [&](StoredFinding& f) {
        const int64_t process = f.process_id == 0 ? 0 : process_ids[f.process_id];
        if (auto run = joined.find(f.run_id); run != joined.end()) {
          if (auto it = run->second.find({process, f.local_id}); it != run->second.end()) {
            ++counted.findings_already_there;
            raise.Reset();
            raise.Bind(1, static_cast<int64_t>(f.finding.count)).Bind(2, it->second.first);
            if (!raise.Run()) return write_error = raise.error(), false;
            return true;
          }
        }
        if (f.finding.rule == kCountOnlyRule) return true;
        if (out.AddFinding(run_ids[f.run_id], process, f.local_id, f.finding) < 0) {
          write_error = out.last_error();
          return false;
        }
        ++counted.findings;
        return true;
      },
      error);
  if (!write_error.empty()) return fail(write_error);
  if (!read) return false;
  if (!tx.Commit()) return fail(db.error());
  if (stats) *stats += counted;
  return true;
}

int RunMerge(const std::string& output, const std::vector<std::string>& inputs, std::ostream& err,
             int busy_timeout_ms) {
  if (inputs.empty()) return Fail(err, "no input databases");
  std::string error;
  // Every input is checked and opened before the output is touched.
  std::vector<std::unique_ptr<Store>> stores;
  std::vector<std::string> opened;
  for (const std::string& path : inputs) {
    if (IsDatabaseFile(output, path) || IsDatabaseFile(path, output))
      return Fail(err, path + ": is the output database, or one of SQLite's files beside it; nothing was written");
    // The same file under another name (or the same name again) is read once.
    if (auto same = std::find_if(opened.begin(), opened.end(), [&](const std::string& o) { return SameFile(o, path); });
        same != opened.end()) {
      fmt::print(err, "streamcheck merge: {}: the same file as {}, read once\n", path, *same);
      continue;
    }
    opened.push_back(path);
    std::unique_ptr<Store> in = Store::OpenExisting(path, &error);
    if (!in) return Fail(err, error);
    stores.push_back(std::move(in));
  }
  struct stat info {};
  const bool existed = ::stat(output.c_str(), &info) == 0;
  OpenOptions options;
  options.check_integrity = true;  // never add to a damaged file
  options.busy_timeout_ms = busy_timeout_ms;
  std::unique_ptr<Store> out = Store::Open(output, &error, options);
  // A file this command created goes again when the merge fails.
  auto discard = [&] {
    out.reset();
    if (existed) return;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) ::unlink((output + suffix).c_str());
  };
  if (!out) {
    discard();
    return Fail(err, error);
  }
  // What a lock kept out of OUT earlier goes in first (store/pending_writes.h).
  std::string unfolded;
  FoldPendingFiles(*out, &unfolded);
  if (!unfolded.empty()) fmt::print(err, "streamcheck merge: {}\n", unfolded);
  // All inputs in one transaction: a failure leaves the output as it was.
  MergeStats stats;
  {
    Transaction all(out->database());
    if (!all.ok()) {
      error = fmt::format("{}: cannot write: {}", output, out->database().error());
      discard();
      return Fail(err, error);
    }
    for (auto& in : stores) {
      if (!MergeInto(*out, *in, &stats, &error)) {
        error += fmt::format("; {} was left as it was", output);
        break;
      }
    }
    if (error.empty() && !all.Commit())
      error = fmt::format("{}: cannot commit the merge: {}; it was left as it was", output, out->database().error());
  }
  if (!error.empty()) {
    discard();
    return Fail(err, error);
  }
  fmt::print(err, "streamcheck merge: {} run(s), {} process(es), {} finding(s) into {}{}\n", stats.runs,
             stats.processes, stats.findings, output,
             stats.runs_already_there == 0
                 ? ""
                 : fmt::format("; {} run(s) and {} finding(s) it already had were not copied again",
                               stats.runs_already_there, stats.findings_already_there));
  return 0;
}

}  // namespace streamcheck::store
