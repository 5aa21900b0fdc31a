// `streamcheck replay`: the engine over recorded (or hand-written) traces, on
// a machine with no GPU. Findings go to the store as they are found, so a
// trace that turns out corrupt halfway keeps everything found before the
// damage; the error names the byte offset and the exit code is 2.
#include "cli/cmd_replay.h"

#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/exit_code.h"
#include "runtime/engine.h"
#include "runtime/finding_filter.h"
#include "runtime/trace/replay.h"
#include "runtime/trace/trace_io.h"
#include "runtime/trace/trace_symbols.h"
#include "store/store.h"
#include "store/suppressions.h"
#include "store/text_report.h"

namespace streamcheck::cli {
namespace {

struct ReplayOptions {
  std::vector<std::string> traces;
  std::string db = "streamcheck.db";
  bool no_db = false;
  std::string suppressions;
  int error_exitcode = 0;
  bool quiet = false;
};

// Forwards findings to the store (when there is one) and keeps them for the
// terminal report.
class ReplaySink : public FindingSink {
 public:
  explicit ReplaySink(FindingSink* store) : store_(store) {}
  void OnFinding(uint64_t id, const Finding& f) override {
    if (store_) store_->OnFinding(id, f);
    ids_.push_back(id);
    findings_.push_back(f);
  }
  void OnFindingCount(uint64_t id, uint64_t count) override {
    if (store_) store_->OnFindingCount(id, count);
    for (size_t i = 0; i < ids_.size(); ++i)
      if (ids_[i] == id) findings_[i].count = count;
  }
  const std::vector<Finding>& findings() const { return findings_; }

 private:
  FindingSink* store_;
  std::vector<uint64_t> ids_;
  std::vector<Finding> findings_;
};

std::map<std::string, uint64_t> StatsCounters(const EngineStats& s) {
  return {{"records", s.records},
          {"stream_operations", s.stream_operations},
          {"host_operations", s.host_operations},
          {"accesses_checked", s.accesses_checked},
          {"findings", s.findings},
          {"finding_occurrences", s.finding_occurrences}};
}

std::string Hostname() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

int Replay(const ReplayOptions& o, const std::string& command_line) {
  std::optional<SuppressionList> suppressions;
  if (!o.suppressions.empty()) {
    std::string error;
    suppressions = SuppressionList::Load(o.suppressions, &error);
    if (!suppressions) {
      fmt::print(stderr, "streamcheck replay: {}\n", error);
      return kExitUsage;
    }
  }
  std::unique_ptr<store::Store> db;
  int64_t run = -1;
  if (!o.no_db) {
    std::string error;
    db = store::Store::Open(o.db, &error);
    if (!db) {
      fmt::print(stderr, "streamcheck replay: cannot open database {}: {}\n", o.db, error);
      return kExitUsage;
    }
    store::RunInfo info;
    info.mode = "replay";
    info.command = command_line;
    info.host = Hostname();
    run = db->BeginRun(info);
    if (run < 0) {
      fmt::print(stderr, "streamcheck replay: {}: {}\n", o.db, db->last_error());
      return kExitUsage;
    }
  }

  int exit_code = kExitOk;
  uint64_t total_findings = 0, total_suppressed = 0, total_occurrences = 0;
  store::ReportData report;
  report.db_path = o.no_db ? "the replayed traces (no database)" : o.db;
  for (const std::string& path : o.traces) {
    std::string error;
    std::unique_ptr<TraceSource> source = OpenTrace(path, &error);
    if (!source) {
      fmt::print(stderr, "streamcheck replay: {}\n", error);
      exit_code = kExitUsage;
      continue;
    }
    int64_t process = 0;
    std::unique_ptr<FindingSink> store_sink;
    if (db) {
      process = db->AddProcess(run, {0, path, "", -1});
      store_sink = db->MakeFindingSink(run, process);
    }
    ReplaySink collected(store_sink.get());
    SuppressingSink sink(&collected, [&](const Finding& f) { return suppressions && suppressions->Suppressed(f); });
    Engine engine(&sink);
    // Stacks defined anywhere in the trace (the tracer symbolizes them at exit).
    TraceSymbols symbols;
    if (auto first_pass = OpenTrace(path, &error)) symbols.Collect(*first_pass);
    engine.set_stack_resolver(&symbols);
    const auto start = std::chrono::steady_clock::now();
    const TraceSource::Status status = ReplayInto(*source, engine);
    engine.Finish();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (status == TraceSource::Status::kError) {
      fmt::print(stderr, "streamcheck replay: {} (findings from the {} records before it are kept)\n",
                 source->error(), source->records_read());
      exit_code = kExitUsage;
    }
    const EngineStats& stats = engine.stats();
    if (db) {
      db->AddCounters(run, process, "stats", StatsCounters(stats));
      db->AddCounters(run, process, "unmodeled_api", stats.unmodeled_apis);
      db->AddCounters(run, process, "anomaly", stats.anomalies);
    }
    for (const Finding& f : collected.findings()) {
      store::StoredFinding stored;
      stored.finding = f;
      stored.severity = std::string(SeverityOf(f));
      report.findings.push_back(std::move(stored));
      total_occurrences += f.count;
    }
    total_findings += collected.findings().size();
    total_suppressed += sink.suppressed();
    if (!o.quiet) {
      fmt::print(stderr, "streamcheck replay: {}: {} records in {:.3f} s, {} findings", path, stats.records,
                 seconds, collected.findings().size());
      if (sink.suppressed()) fmt::print(stderr, " ({} suppressed)", sink.suppressed());
      fmt::print(stderr, "\n");
      for (const auto& [api, n] : stats.unmodeled_apis)
        fmt::print(stderr, "  not modeled: {} ({} calls)\n", api, n);
      for (const auto& [what, n] : stats.anomalies) fmt::print(stderr, "  anomaly: {} ({}x)\n", what, n);
    }
  }
  if (!o.quiet) store::WriteTextReport(report, std::cout);
  if (db) {
    if (!db->EndRun(run, exit_code)) fmt::print(stderr, "streamcheck replay: {}\n", db->last_error());
    if (!db->last_error().empty()) {
      fmt::print(stderr, "streamcheck replay: writing {} failed: {}\n", o.db, db->last_error());
      exit_code = kExitUsage;
    }
  }
  fmt::print(stderr, "streamcheck: {} finding{} ({} occurrences){}{}\n", total_findings,
             total_findings == 1 ? "" : "s", total_occurrences,
             total_suppressed ? fmt::format(", {} suppressed", total_suppressed) : "",
             db ? fmt::format("; stored in {} (run {})", o.db, run) : "");
  if (exit_code == kExitOk && total_findings > 0 && o.error_exitcode != 0) exit_code = o.error_exitcode;
  return exit_code;
}

}  // namespace

void AddReplayCommand(CLI::App& app) {
  auto o = std::make_shared<ReplayOptions>();
  auto* cmd = app.add_subcommand(
      "replay",
      "Run the race detector over recorded traces (binary .sctrace or text) and store the findings.\n"
      "Works without a GPU. A corrupt trace is reported with its byte offset (exit 2); findings from "
      "the records before the damage are kept.");
  cmd->add_option("TRACE", o->traces, "trace files (binary or text form)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--db", o->db, "SQLite findings database to append a run to")->capture_default_str();
  cmd->add_flag("--no-db", o->no_db, "do not write a database; print findings only");
  cmd->add_option("--suppressions", o->suppressions, "suppressions file (see docs/SUPPRESSIONS.md)");
  cmd->add_option("--error-exitcode", o->error_exitcode,
                  "exit with this code when there are findings (default 0: findings do not fail)");
  cmd->add_flag("-q,--quiet", o->quiet, "print only the one-line summary");
  cmd->callback([o, &app] {
    std::string command_line = "streamcheck replay";
    for (const std::string& t : o->traces) command_line += " " + t;
    SetExitCode(Replay(*o, command_line));
  });
}

}  // namespace streamcheck::cli
