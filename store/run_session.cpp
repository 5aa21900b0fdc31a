#include "store/run_session.h"

#include <unistd.h>

#include <climits>

#include "store/file_identity.h"

namespace streamcheck::store {
namespace {

std::string WorkingDirectory() {
  char buffer[PATH_MAX];
  return getcwd(buffer, sizeof buffer) ? buffer : "";
}

}  // namespace

const std::vector<CounterDoc>& DocumentedCounters() {
  static const std::vector<CounterDoc> docs = {
#define STREAMCHECK_COUNTER_CATEGORY(constant, name, meaning) {"", name, meaning},
#define STREAMCHECK_STAT(constant, name, meaning) {counters::kStats, name, meaning},
#define STREAMCHECK_HOST_THREADS_COUNTER(constant, name, meaning) {counters::kHostThreads, name, meaning},
#define STREAMCHECK_HOST_GUARDS_COUNTER(constant, name, meaning) {counters::kHostGuards, name, meaning},
#include "store/counters.def"
  };
  return docs;
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return {};
  return name;
}

FindingTally& FindingTally::operator+=(const FindingTally& o) {
  found += o.found;
  suppressed += o.suppressed;
  suppressed_occurrences += o.suppressed_occurrences;
  kept += o.kept;
  occurrences += o.occurrences;
  stored += o.stored;
  return *this;
}

std::map<std::string, uint64_t> StatsCounters(const EngineStats* s, const FindingTally& t) {
  std::map<std::string, uint64_t> out = {
      {std::string(counters::kFindings), t.kept},
      {std::string(counters::kFindingOccurrences), t.occurrences},
      {std::string(counters::kSuppressed), t.suppressed},
      {std::string(counters::kSuppressedOccurrences), t.suppressed_occurrences},
  };
  if (s) {
    out[std::string(counters::kRecords)] = s->records;
    out[std::string(counters::kStreamOperations)] = s->stream_operations;
    out[std::string(counters::kHostOperations)] = s->host_operations;
    out[std::string(counters::kAccessesChecked)] = s->accesses_checked;
  }
  return out;
}

void ProcessOutput::OnFinding(uint64_t local_id, const Finding& finding) {
  ++tally_.found;
  const SuppressionList* suppressions = session_->suppressions();
  Seen& seen = counts_[local_id];
  seen.count = finding.count;
  if (suppressions && suppressions->Suppressed(finding)) {
    seen.suppressed = true;
    ++tally_.suppressed;
    tally_.suppressed_occurrences += finding.count;
    return;
  }
  ++tally_.kept;
  tally_.occurrences += finding.count;
  session_->NoteSourceFolders(finding);
  if (session_->store() && session_->run_ >= 0 && session_->StoreFinding(this, local_id, finding)) ++tally_.stored;
  if (also_) also_->OnFinding(local_id, finding);
}

void ProcessOutput::OnFindingCount(uint64_t local_id, uint64_t count) {
  auto it = counts_.find(local_id);
  if (it == counts_.end()) return;  // never reported: nothing to count
  Seen& seen = it->second;
  (seen.suppressed ? tally_.suppressed_occurrences : tally_.occurrences) += count - seen.count;
  seen.count = count;
  if (seen.suppressed) return;
  if (session_->store() && session_->run_ >= 0) session_->StoreCount(this, local_id, count);
  if (also_) also_->OnFindingCount(local_id, count);
}

std::unique_ptr<RunSession> RunSession::Open(const SessionConfig& config, std::string* error) {
  std::unique_ptr<RunSession> session(new RunSession(config));
  session->run_ = config.existing_run;  // kept without a database too (a forked tracer joins it later)
  auto problem = [&](std::string message) {
    if (!config.best_effort) {
      *error = std::move(message);
      return false;
    }
    session->warnings_.push_back(std::move(message));
    return true;
  };
  if (!config.suppressions_path.empty()) {
    std::string why;
    session->suppressions_ = SuppressionList::Load(config.suppressions_path, &why);
    if (!session->suppressions_ && !problem(config.best_effort ? "ignoring suppressions: " + why : why))
      return nullptr;
  }
  if (config.db_path.empty()) return session;
  std::vector<std::string> inputs = config.input_paths;
  if (!config.suppressions_path.empty()) inputs.push_back(config.suppressions_path);
  for (const std::string& input : inputs) {
    if (!IsDatabaseFile(config.db_path, input)) continue;
    if (!problem(config.db_path + ": the database would be " + input +
                 ", which this command reads (or " + input + " is one of the database's -wal, -shm, -journal files)"
                 "; nothing was written"))
      return nullptr;
    return session;
  }
  std::string why;
  // A lock another process holds while it makes the schema is tried again:
  // without the database a traced program's findings would go nowhere.
  for (int attempt = 0; attempt < 3 && !session->store_; ++attempt) {
    session->store_ = Store::Open(config.db_path, &why, config.open);
    if (why.find("locked") == std::string::npos) break;
  }
  if (!session->store_) {
    if (!problem(config.best_effort ? "cannot open findings database " + config.db_path + ": " + why +
                                          " (findings go to stderr only)"
                                    : why))
      return nullptr;
    return session;
  }
  if (session->run_ < 0) {
    RunInfo info = config.run;
    if (info.host.empty()) info.host = HostName();
    session->run_ = session->store_->BeginRun(info);
    if (session->run_ < 0) {
      if (!problem(session->store_->last_error())) return nullptr;
      session->store_.reset();
      return session;
    }
    session->began_run_ = true;
  }
  if (const std::string cwd = WorkingDirectory(); !cwd.empty()) session->source_roots_.insert(cwd);
  // The run as the database has it: a pending file names it so.
  std::vector<StoredRun> runs;
  std::string unread;
  if (ReadRuns(*session->store_, &runs, &unread))
    for (const StoredRun& r : runs)
      if (r.id == session->run_) session->run_row_ = r;
  session->FoldWhatWasKeptBeside();
  return session;
}

void RunSession::FoldWhatWasKeptBeside(int attempts) {
  std::string error;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    error.clear();
    FoldPendingFiles(*store_, &error);
    if (error.empty()) return;
  }
  warnings_.push_back(error + " (the next writer tries again)");
}

bool RunSession::StoreFinding(ProcessOutput* output, uint64_t local_id, const Finding& finding) {
  if (!pending_.empty()) WritePending(/*wait=*/false);
  if (pending_.empty()) {
    if (store_->AddFinding(run_, output->process_.id, local_id, finding) > 0) return true;
    if (!store_->locked_out()) return Write(false);
  }
  pending_.AddFinding(output->index_, output->process_, local_id, finding);
  return false;
}

void RunSession::StoreCount(ProcessOutput* output, uint64_t local_id, uint64_t count) {
  if (pending_.UpdatePendingCount(output->process_.id, local_id, count)) return;
  if (pending_.empty()) {
    if (store_->SetFindingCount(run_, output->process_.id, local_id, count)) return;
    if (!store_->locked_out()) return void(Write(false));
  }
  pending_.AddCount(output->process_, local_id, count);
}

void RunSession::StoreCounters(ProcessOutput* output, std::string_view category,
                               const std::map<std::string, uint64_t>& counts) {
  if (pending_.empty()) {
    if (store_->AddCounters(run_, output->process_.id, category, counts)) return;
    if (!store_->locked_out()) return void(Write(false));
  }
  pending_.AddCounters(output->process_, std::string(category), counts);
}

void RunSession::WritePending(bool wait) {
  const auto written = pending_.WriteTo(*store_, run_, wait ? store_->busy_timeout_ms() : 0);
  if (!written) return;
  for (const auto& [owner, n] : *written) outputs_[owner]->tally_.stored += n;
}

void RunSession::Settle() {
  if (!store_ || pending_.empty()) return;
  WritePending(/*wait=*/true);
  if (pending_.empty()) return;
  const std::string lock = store_->last_error();
  const uint64_t findings = pending_.findings();
  std::string error;
  const std::string file = pending_.Spill(config_.db_path, run_row_, &error);
  if (!file.empty()) {
    findings_kept_beside_ += findings;
    pending_files_.push_back(file);
    if (first_error_.empty()) first_error_ = lock;
    return;
  }
  // Nowhere to keep them: lost, and said so.
  pending_.Clear();
  failed_writes_ += findings == 0 ? 1 : findings;
  if (first_error_.empty()) first_error_ = lock + "; keeping them beside it failed too: " + error;
}

std::string RunSession::UnstoredSummary() const {
  std::string sentence;
  const FindingTally all = total();
  std::vector<std::string> files;
  if (const uint64_t waiting = store_ ? FindingsOfRunIn(PendingFiles(config_.db_path), run_row_, &files) : 0) {
    std::string names;
    for (const std::string& f : files) names += (names.empty() ? "" : ", ") + f;
    sentence = std::to_string(waiting) + " findings were kept in " + names + " beside " + config_.db_path + " (" +
               (first_error_.empty() ? config_.db_path + ": it was locked by another process" : first_error_) +
               "); the next writer of " + config_.db_path + " folds them in, as `streamcheck merge " +
               config_.db_path + " FILE` does now";
  }
  if (failed_writes_ != 0) {
    sentence += (sentence.empty() ? "" : "; ") + std::string("writing to ") + config_.db_path + " failed (" +
                first_error_ + "); " + std::to_string(all.stored) + " of " + std::to_string(all.kept) +
                " findings were stored, the rest of the run's rows as far as they were written";
  }
  return sentence;
}

RunSession::~RunSession() = default;

void RunSession::NoteSourceFolders(const Finding& finding) {
  if (!config_.frames_name_sources || !store_) return;
  auto note = [&](const std::vector<ResolvedFrame>& stack) {
    for (const ResolvedFrame& frame : stack) {
      const size_t slash = frame.file.rfind('/');
      if (slash == std::string::npos || slash == 0) continue;
      std::string folder = frame.file.substr(0, slash);
      if (folder.front() != '/') folder = WorkingDirectory() + "/" + folder;
      source_roots_.insert(std::move(folder));
    }
  };
  for (const FindingAccess& a : finding.accesses) note(a.stack);
  note(finding.buffer.allocation_stack);
}

bool RunSession::Write(bool ok) {
  if (ok) return true;
  if (failed_writes_++ == 0) first_error_ = store_->last_error();
  return false;
}

ProcessOutput* RunSession::AddProcess(const std::optional<ProcessInfo>& info, FindingSink* also) {
  int64_t process = 0;
  if (store_ && info) {
    ProcessInfo row = *info;
    if (row.host.empty()) row.host = HostName();
    for (int attempt = 0; attempt < 3; ++attempt) {  // its findings need the row: worth waiting for
      process = store_->AddProcess(run_, row);
      if (process > 0 || !store_->locked_out()) break;
    }
    if (!Write(process > 0)) process = 0;
  }
  PendingWrites::Process row{process, info.value_or(ProcessInfo{})};
  if (row.info.host.empty()) row.info.host = HostName();
  outputs_.push_back(std::unique_ptr<ProcessOutput>(new ProcessOutput(this, outputs_.size(), std::move(row), also)));
  return outputs_.back().get();
}

void RunSession::FinishProcess(ProcessOutput* output, const EngineStats* stats) {
  if (output->finished_) return;
  output->finished_ = true;
  if (!store_) return;
  if (!pending_.empty() || !store_->AddSourceRoots(run_, source_roots_)) {
    if (pending_.empty() && !store_->locked_out()) Write(false);
    else pending_.AddSourceRoots(source_roots_);
  }
  StoreCounters(output, counters::kStats, StatsCounters(stats, output->tally_));
  if (stats) {
    StoreCounters(output, counters::kUnmodeledApi, stats->unmodeled_apis);
    StoreCounters(output, counters::kAnomaly, stats->anomalies);
    StoreCounters(output, counters::kLibraryInternal, stats->library_internal);
  }
  Settle();
}

void RunSession::AddCounters(ProcessOutput* output, std::string_view category,
                             const std::map<std::string, uint64_t>& counts) {
  if (!store_) return;
  StoreCounters(output, category, counts);
  if (output->finished_) Settle();
}

void RunSession::End(int exit_status) {
  if (!store_ || !began_run_) return;
  FoldWhatWasKeptBeside(/*attempts=*/3);  // the run's last word: worth waiting for
  if (!pending_.empty() || !store_->EndRun(run_, exit_status)) {
    if (pending_.empty() && !store_->locked_out()) return void(Write(false));
    pending_.EndRun(exit_status);
  }
  Settle();
}

FindingTally RunSession::total() const {
  FindingTally sum;
  for (const auto& output : outputs_) sum += output->tally_;
  return sum;
}

}  // namespace streamcheck::store
