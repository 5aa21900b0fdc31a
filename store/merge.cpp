#include "store/merge.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>

#include "store/database.h"
#include "store/file_identity.h"
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

}  // namespace

bool MergeInto(Store& out, Store& in, MergeStats* stats, std::string* error) {
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
  MergeStats counted;
  for (const StoredRun& run : runs) {
    std::string why;
    const int64_t new_run = CopyRun(db, run, &why);
    if (new_run < 0) return fail(why);
    run_ids[run.id] = new_run;
    ++counted.runs;

    std::vector<StoredProcess> processes;
    if (!ReadProcesses(in, run.id, &processes, error)) return false;
    for (const StoredProcess& p : processes) {
      int64_t new_process = out.AddProcess(new_run, p.info);
      if (new_process < 0) return fail(out.last_error());
      process_ids[p.id] = new_process;
      ++counted.processes;
    }

    std::map<std::string, std::map<std::string, uint64_t>> counters;
    if (!ReadCounters(in, run.id, &counters, error)) return false;
    for (const auto& [category, counts] : counters)
      if (!out.AddCounters(new_run, 0, category, counts)) return fail(out.last_error());
    std::set<std::string> roots;
    if (!ReadSourceRoots(in, {run.id}, &roots, error)) return false;
    if (!out.AddSourceRoots(new_run, roots)) return fail(out.last_error());
  }
  // One finding at a time: memory does not grow with the input.
  std::string write_error;
  const bool read = ForEachFinding(
      in, {},
      [&](StoredFinding& f) {
        const int64_t process = f.process_id == 0 ? 0 : process_ids[f.process_id];
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
  if (stats) {
    stats->runs += counted.runs;
    stats->processes += counted.processes;
    stats->findings += counted.findings;
  }
  return true;
}

int RunMerge(const std::string& output, const std::vector<std::string>& inputs, std::ostream& err,
             int busy_timeout_ms) {
  if (inputs.empty()) return Fail(err, "no input databases");
  std::string error;
  // Every input is checked and opened before the output is touched.
  std::vector<std::unique_ptr<Store>> stores;
  for (const std::string& path : inputs) {
    if (IsDatabaseFile(output, path) || IsDatabaseFile(path, output))
      return Fail(err, path + ": is the output database, or one of SQLite's files beside it; nothing was written");
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
  fmt::print(err, "streamcheck merge: {} run(s), {} process(es), {} finding(s) into {}\n",
             stats.runs, stats.processes, stats.findings, output);
  return 0;
}

}  // namespace streamcheck::store
