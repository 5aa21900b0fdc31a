// `streamcheck replay`: the engine over recorded (or hand-written) traces, on
// a machine with no GPU. Findings go to the store as they are found, so a
// trace that turns out corrupt halfway keeps everything found before the
// damage; the error names the byte offset and the exit code is 2.
#include "cli/cmd_replay.h"

#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <unordered_map>

#include "cli/common_options.h"
#include "cli/exit_code.h"
#include "cli/run_summary.h"
#include "report/text_escape.h"
#include "report/text_report.h"
#include "runtime/engine.h"
#include "runtime/trace/replay.h"
#include "runtime/trace/trace_io.h"
#include "runtime/trace/trace_symbols.h"
#include "store/run_session.h"

namespace streamcheck::cli {
namespace {

struct ReplayOptions {
  std::vector<std::string> traces;
  std::string db = "streamcheck.db";
  bool no_db = false;
  std::string suppressions;
  int error_exitcode = 0;
  int busy_timeout_ms = 5000;
  bool quiet = false;
  std::string color = "auto";
  // --forbid-default-stream[=GLOB]; "": as the trace's run did (its process_info).
  std::string forbid_default_stream;
};

// The default-stream check for one trace: the option's, else what the run
// that recorded it checked (`run --forbid-default-stream`, kept in its
// process_info); "*" is every object's work.
EngineOptions OptionsFor(const ReplayOptions& o, const TraceSymbols& symbols) {
  EngineOptions options;
  const std::string objects =
      !o.forbid_default_stream.empty()
          ? o.forbid_default_stream
          : DecodeProcessInfoValue(ProcessInfoField(symbols.process_info(), kForbidDefaultStreamField));
  if (objects.empty()) return options;
  options.forbid_default_stream = true;
  options.default_stream_objects = objects == "*" ? "" : objects;
  return options;
}

// Keeps the findings that passed the suppressions, for the terminal report.
class CollectingSink : public FindingSink {
 public:
  void OnFinding(uint64_t id, const Finding& f) override {
    index_[id] = findings_.size();
    findings_.push_back(f);
  }
  void OnFindingCount(uint64_t id, uint64_t count) override {
    if (auto it = index_.find(id); it != index_.end()) findings_[it->second].count = count;
  }
  const std::vector<Finding>& findings() const { return findings_; }

 private:
  std::unordered_map<uint64_t, size_t> index_;
  std::vector<Finding> findings_;
};

int Replay(const ReplayOptions& o, const std::string& command_line) {
  store::SessionConfig config;
  if (!o.no_db) config.db_path = o.db;
  config.run.mode = "replay";
  config.run.command = command_line;
  config.suppressions_path = o.suppressions;
  config.input_paths = o.traces;
  config.open.busy_timeout_ms = o.busy_timeout_ms;
  config.open.check_integrity = true;  // never add to a damaged file
  std::string error;
  std::unique_ptr<store::RunSession> session = store::RunSession::Open(config, &error);
  if (!session) {
    fmt::print(stderr, "streamcheck replay: {}\n", error);
    return kExitUsage;
  }

  int exit_code = kExitOk;
  report::ReportData report;
  report.db_path = o.no_db ? "the replayed traces (no database)" : o.db;
  report.color = ColorWanted(o.color, STDOUT_FILENO);
  for (const std::string& path : o.traces) {
    std::unique_ptr<TraceSource> source = OpenTrace(path, &error);
    if (!source) {
      fmt::print(stderr, "streamcheck replay: {}\n", error);
      exit_code = kExitUsage;
      continue;
    }
    // Stacks defined anywhere in the trace (the tracer symbolizes them at
    // exit), and the process it came from (its rank in a job, its host).
    TraceSymbols symbols;
    if (auto first_pass = OpenTrace(path, &error)) symbols.Collect(*first_pass);
    const std::string rank = ProcessInfoField(symbols.process_info(), "rank");
    // Kept only for the report printed at the end: with -q nothing is, and
    // memory grows with nothing but the engine's one entry per distinct finding.
    CollectingSink collected;
    store::ProcessOutput* output = session->AddProcess(
        store::ProcessInfo{std::atoll(ProcessInfoField(symbols.process_info(), "pid").c_str()), path,
                           ProcessInfoField(symbols.process_info(), "host"),
                           rank.empty() ? -1 : std::atoi(rank.c_str())},
        o.quiet ? nullptr : &collected);
    Engine engine(output, OptionsFor(o, symbols));
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
    session->FinishProcess(output, &stats);
    for (const Finding& f : collected.findings()) report.findings.push_back(report::InMemoryFinding(f));
    if (!o.quiet) {
      const store::FindingTally& tally = output->tally();
      fmt::print(stderr, "streamcheck replay: {}: {} records in {:.3f} s, {} findings", path, stats.records,
                 seconds, tally.kept);
      if (tally.suppressed) fmt::print(stderr, " ({} suppressed)", tally.suppressed);
      fmt::print(stderr, "\n");
      PrintCoverageNotes("  ", stats.unmodeled_apis, stats.anomalies, stats.library_internal);
    }
  }
  if (!o.quiet) report::WriteTextReport(report, std::cout);
  session->Settle();  // what a lock kept out: stored now, or kept beside the database
  const store::FindingTally total = session->total();
  std::string stored;
  if (session->has_store()) {
    stored = total.stored == total.kept ? fmt::format("; stored in {} (run {})", o.db, session->run_id())
                                        : fmt::format("; {} of them stored in {} (run {})", total.stored, o.db,
                                                      session->run_id());
  }
  PrintFindingsLine(total.kept, total.occurrences, total.suppressed, stored);
  exit_code = ExitCodeAfterFindings("replay", exit_code, exit_code != kExitOk, total.kept, o.error_exitcode, *session);
  session->End(exit_code);  // the run row says what the command exits with
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
  AddErrorExitCodeOption(cmd, &o->error_exitcode, "findings do not fail");
  AddBusyTimeoutOption(cmd, &o->busy_timeout_ms);
  cmd->add_flag("-q,--quiet", o->quiet, "print only the one-line summary");
  // "--forbid-default-stream" alone is "=*": every object's work.
  cmd->add_flag("--forbid-default-stream{*}", o->forbid_default_stream,
                "report work issued to the legacy or per-thread default stream (rule default-stream-use), as `run "
                "--forbid-default-stream[=GLOB]` does; without it, a trace recorded with that option is checked as "
                "its run was");
  AddColorOption(cmd, &o->color);
  cmd->callback([o, &app] {
    std::string command_line = "streamcheck replay";
    for (const std::string& t : o->traces) command_line += " " + t;
    SetExitCode(Replay(*o, command_line));
  });
}

}  // namespace streamcheck::cli
