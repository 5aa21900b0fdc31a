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
  if (Store* store = session_->store(); store && session_->run_ >= 0) {
    if (session_->Write(store->AddFinding(session_->run_, process_id_, local_id, finding) > 0)) ++tally_.stored;
  }
  if (also_) also_->OnFinding(local_id, finding);
}

void ProcessOutput::OnFindingCount(uint64_t local_id, uint64_t count) {
  auto it = counts_.find(local_id);
  if (it == counts_.end()) return;  // never reported: nothing to count
  Seen& seen = it->second;
  (seen.suppressed ? tally_.suppressed_occurrences : tally_.occurrences) += count - seen.count;
  seen.count = count;
  if (seen.suppressed) return;
  if (Store* store = session_->store(); store && session_->run_ >= 0)
    session_->Write(store->SetFindingCount(session_->run_, process_id_, local_id, count));
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
  session->store_ = Store::Open(config.db_path, &why, config.open);
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
  return session;
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
    process = store_->AddProcess(run_, row);
    if (!Write(process > 0)) process = 0;
  }
  outputs_.push_back(std::unique_ptr<ProcessOutput>(new ProcessOutput(this, process, also)));
  return outputs_.back().get();
}

void RunSession::FinishProcess(ProcessOutput* output, const EngineStats* stats) {
  if (output->finished_) return;
  output->finished_ = true;
  if (!store_) return;
  const int64_t process = output->process_id_;
  Write(store_->AddSourceRoots(run_, source_roots_));
  Write(store_->AddCounters(run_, process, counters::kStats, StatsCounters(stats, output->tally_)));
  if (stats) {
    Write(store_->AddCounters(run_, process, counters::kUnmodeledApi, stats->unmodeled_apis));
    Write(store_->AddCounters(run_, process, counters::kAnomaly, stats->anomalies));
    Write(store_->AddCounters(run_, process, counters::kLibraryInternal, stats->library_internal));
  }
}

void RunSession::AddCounters(ProcessOutput* output, std::string_view category,
                             const std::map<std::string, uint64_t>& counts) {
  if (store_) Write(store_->AddCounters(run_, output->process_id_, category, counts));
}

void RunSession::End(int exit_status) {
  if (store_ && began_run_) Write(store_->EndRun(run_, exit_status));
}

FindingTally RunSession::total() const {
  FindingTally sum;
  for (const auto& output : outputs_) sum += output->tally_;
  return sum;
}

}  // namespace streamcheck::store
