// `streamcheck run`: starts a program with the CUPTI tracer injected
// (CUDA_INJECTION64_PATH), passes its stdio and exit status through, and
// reports what the tracer stored. The tracer writes each finding to the
// database the moment it is found, so a crash of the program loses none.
#include "cli/cmd_run.h"

#include <fmt/core.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "cli/common_options.h"
#include "cli/exit_code.h"
#include "cli/run_summary.h"
#include "cli/install_paths.h"
#include "cli/precise_support.h"
#include "report/object_names.h"
#include "report/output_file.h"
#include "report/report_model.h"
#include "report/text_escape.h"
#include "report/text_report.h"
#include "store/file_identity.h"
#include "store/reader.h"
#include "store/run_session.h"
#include "tracer/debug/debug_flags.h"
#include "tracer/environment.h"

namespace streamcheck::cli {
namespace {

namespace fs = std::filesystem;

struct RunOptions {
  std::vector<std::string> command;
  std::string db = "streamcheck.db";
  std::string trace;
  std::string suppressions;
  int error_exitcode = 0;
  int busy_timeout_ms = 5000;
  bool no_stacks = false;
  bool no_host_guards = false;
  bool quiet = false;
  std::string precise;  // --precise[=GLOB]: kernels to instrument ("" = fast mode)
  std::string forbid_default_stream;  // --forbid-default-stream[=GLOB]: objects whose default-stream work counts ("" = off)
  std::string color = "auto";
};

std::string Absolute(const std::string& path) {
  return path.empty() ? path : fs::absolute(path).lexically_normal().string();
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " ") + p;
  return out;
}

// The preloaded library (tracer/preload/: the _exit() hook, the interposers
// of host-thread synchronization, NCCL, signals and mprotect) goes ahead of
// the program's own LD_PRELOAD. Without it (not built beside the tracer) the
// tracer still runs, but sees less: host threads are ordered by trace order,
// NCCL's collectives are not observed, and a program ending with _exit() may
// lose what the tracer had queued.
void PreloadInterposers(const std::string& tracer) {
  std::error_code ec;
  const fs::path hook = fs::path(tracer).parent_path() / "libstreamcheck_preload.so";
  if (!fs::exists(hook, ec)) return;
  const char* existing = std::getenv("LD_PRELOAD");
  const std::string preload = hook.string() + (existing && *existing ? std::string(":") + existing : "");
  setenv("LD_PRELOAD", preload.c_str(), 1);
}

// Child side of fork: environment for the tracer, then exec.
[[noreturn]] void ExecTraced(const RunOptions& o, const std::string& tracer, int64_t run) {
  signal(SIGPIPE, SIG_DFL);  // streamcheck ignores it (main.cpp); the program gets the default
  setenv("CUDA_INJECTION64_PATH", tracer.c_str(), 1);
  PreloadInterposers(tracer);
  setenv(environment::kDb, Absolute(o.db).c_str(), 1);
  setenv(environment::kRunId, std::to_string(run).c_str(), 1);
  setenv(environment::kRootPid, std::to_string(getpid()).c_str(), 1);
  // Ranks on other hosts write beside the database (docs/NCCL.md).
  setenv(environment::kRunHost, store::HostName().c_str(), 1);
  if (!o.trace.empty()) setenv(environment::kTrace, Absolute(o.trace).c_str(), 1);
  if (!o.suppressions.empty()) setenv(environment::kSuppressions, Absolute(o.suppressions).c_str(), 1);
  if (o.no_stacks) setenv(environment::kStacks, "0", 1);
  setenv(environment::kBusyTimeoutMs, std::to_string(o.busy_timeout_ms).c_str(), 1);
  if (!o.precise.empty()) setenv(environment::kPrecise, o.precise.c_str(), 1);
  if (o.no_host_guards) setenv(environment::kHostGuards, "0", 1);
  if (!o.forbid_default_stream.empty())
    setenv(environment::kForbidDefaultStream, o.forbid_default_stream.c_str(), 1);
  std::vector<char*> argv;
  for (const auto& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  fmt::print(stderr, "streamcheck run: cannot run '{}': {}\n", o.command[0], std::strerror(errno));
  _exit(127);
}

using Counters = std::map<std::string, std::map<std::string, uint64_t>>;


// What the shell would report: the exit code, or 128 + the signal.
int ExitStatusOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

// The run's counters, read back from the database (every traced process
// added its own), and the notes they call for: what was not modeled or not
// observed, and where the host threads' order may be too coarse.
// The program waits for the analysis only where guarded pages may open, or
// where it outran the worker (tracer/analysis_worker.h): said, with the time.
void PrintAnalysisWaits(std::map<std::string, uint64_t>& analysis) {
  if (const uint64_t held = analysis[std::string(store::counters::kQueueFullWaits)])
    fmt::print(stderr,
               "streamcheck: the program outran the analysis and was held {} time{} ({:.1f} ms in all) for room in "
               "its queue; no record was dropped\n",
               held, held == 1 ? "" : "s", analysis[std::string(store::counters::kQueueFullWaitMicroseconds)] / 1000.0);
  if (const uint64_t waits = analysis[std::string(store::counters::kSyncWaits)])
    fmt::print(stderr,
               "streamcheck: the program waited for the analysis at {} host synchronization{} ({:.1f} ms in all) so "
               "that guarded pages were open when they returned\n",
               waits, waits == 1 ? "" : "s", analysis[std::string(store::counters::kSyncWaitMicroseconds)] / 1000.0);
}

Counters PrintRunCounters(store::Store& db, int64_t run) {
  Counters counters;
  std::string error;
  if (!store::ReadCounters(db, run, &counters, &error)) return counters;
  PrintCoverageNotes("streamcheck: ", counters[std::string(store::counters::kUnmodeledApi)],
                     counters[std::string(store::counters::kAnomaly)],
                     counters[std::string(store::counters::kLibraryInternal)]);
  for (const auto& [what, n] : counters[std::string(store::counters::kPrecise)])
    fmt::print(stderr, "streamcheck: {} ({}x)\n", report::EscapeControl(what), n);
  // Host threads ordered by what the preloaded library saw (thread_order.h):
  // objects past its table share a stamp, which orders more than it should.
  if (const uint64_t shared = counters[std::string(store::counters::kHostThreads)]
                                      [std::string(store::counters::kObjectsSharingAStamp)])
    fmt::print(stderr,
               "streamcheck: {} synchronization object{} beyond the preloaded library's table shared one release "
               "stamp: host threads may seem ordered where they are not (races between them may be missed)\n",
               shared, shared == 1 ? "" : "s");
  // The host's own accesses are seen through guard pages (docs/HOST_GUARDS.md).
  std::map<std::string, uint64_t>& guards = counters[std::string(store::counters::kHostGuards)];
  for (const auto& [what, n] : guards)
    if (what.rfind("off_", 0) == 0 && n > 0)
      fmt::print(stderr, "streamcheck: host accesses not observed: guard pages {} ({} process{})\n",
                 what == store::counters::kHostGuardsOffByRequest ? "off (--no-host-guards)" : "off: " + what.substr(4),
                 n, n == 1 ? "" : "es");
  if (const uint64_t dropped = guards[std::string(store::counters::kHostAccessesDropped)])
    fmt::print(stderr, "streamcheck: {} host access{} seen but not analysed (the tracer was busy too long)\n", dropped,
               dropped == 1 ? "" : "es");
  PrintAnalysisWaits(counters[std::string(store::counters::kAnalysis)]);
  return counters;
}

int Run(const RunOptions& o) {
  if (const char* existing = std::getenv("CUDA_INJECTION64_PATH"); existing && *existing) {
    fmt::print(stderr,
               "streamcheck run: CUDA_INJECTION64_PATH is already set ({}). CUDA loads one injection "
               "library per process, so streamcheck cannot run alongside it; unset it and retry.\n",
               existing);
    return kExitUsage;
  }
  if (const char* debug = std::getenv(environment::kDebug))
    for (const std::string& word : tracer::UnknownDebugSwitches(debug))
      fmt::print(stderr, "streamcheck run: STREAMCHECK_DEBUG: no switch is named '{}' (ignored; `streamcheck run "
                 "--help-debug` lists them)\n", word);
  const std::string tracer = FindTracer();
  if (tracer.empty()) {
    fmt::print(stderr,
               "streamcheck run: libstreamcheck_tracer.so not found in this installation's lib/streamcheck/ (was "
               "it built with the CUDA toolkit? `streamcheck doctor` says); set STREAMCHECK_TRACER_LIB to its path\n");
    return kExitUsage;
  }
  // Fast mode is not what --precise asked for: no quiet fallback to it.
  if (!o.precise.empty()) {
    if (const PreciseSupport precise = CheckPreciseSupport(); !precise.ok) {
      fmt::print(stderr, "streamcheck run: --precise is not available: {}. Fix: {}. Nothing was run (`streamcheck "
                 "doctor` tells what this installation can do here)\n", precise.detail, precise.fix);
      return kExitUsage;
    }
  }
  // The trace file is written from the start: it may not be the database.
  if (!o.trace.empty() && (Absolute(o.trace) == Absolute(o.db) || store::IsDatabaseFile(o.db, o.trace))) {
    fmt::print(stderr, "streamcheck run: --trace {} is the database or one of its -wal, -shm, -journal files; "
               "nothing was run\n", o.trace);
    return kExitUsage;
  }
  // The run row, checked here once (suppressions readable, database whole
  // and writable); each traced process joins the run (tracer/tracer.cpp).
  store::SessionConfig config;
  config.db_path = o.db;
  config.run.mode = "run";
  config.run.command = Join(o.command);
  config.suppressions_path = o.suppressions;
  config.open.busy_timeout_ms = o.busy_timeout_ms;
  config.open.check_integrity = true;
  std::string error;
  std::unique_ptr<store::RunSession> session = store::RunSession::Open(config, &error);
  if (!session) {
    fmt::print(stderr, "streamcheck run: {}\n", error);
    return kExitUsage;
  }
  store::Store* db = session->store();
  const int64_t run = session->run_id();
  std::cout.flush();
  const pid_t child = fork();
  if (child < 0) {
    fmt::print(stderr, "streamcheck run: fork failed: {}\n", std::strerror(errno));
    return kExitUsage;
  }
  if (child == 0) ExecTraced(o, tracer, run);
  // Like system(): Ctrl-C and Ctrl-\ are for the program; we wait and report.
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  const int program_status = ExitStatusOf(status);
  session->End(program_status);

  report::ReportData report;
  report.db_path = o.db;
  report.color = ColorWanted(o.color, STDERR_FILENO);
  if (!store::ReadFindings(*db, {run, ""}, &report.findings, &error)) {
    fmt::print(stderr, "streamcheck run: reading findings back failed: {}\n", error);
    return kExitUsage;
  }
  // What the database holds, before the ranks of a torchrun/mpirun/srun job
  // are folded into one finding per race.
  const uint64_t stored = report.findings.size();
  report::FoldAcrossRanks(&report.findings);
  if (!o.quiet && !report.findings.empty()) {
    std::ostringstream text;
    report::WriteTextReport(report, text);
    std::cerr << text.str();
  }
  Counters counters = PrintRunCounters(*db, run);
  // What the analysis held (issue 43: bounded and said): the engines' own
  // estimate, summed over the traced processes.
  if (!o.quiet) {
    std::map<std::string, uint64_t>& stats = counters[std::string(store::counters::kStats)];
    const uint64_t tables = counters[std::string(store::counters::kAnalysis)][std::string(store::counters::kTracerTableBytes)];
    if (const uint64_t peak = stats[std::string(store::counters::kEnginePeakMemoryBytes)])
      fmt::print(stderr, "streamcheck: {} records analysed, engine memory {:.1f} MiB at most, the tracer's tables {}\n",
                 stats[std::string(store::counters::kRecords)], double(peak) / (1 << 20), report::HumanSize(tables));
  }
  uint64_t occurrences = 0;
  for (const auto& f : report.findings) occurrences += f.finding.count;
  PrintFindingsLine(report.findings.size(), occurrences, 0,
                    fmt::format(" in run {}, stored in {}{}", run, o.db, o.trace.empty() ? "" : "; trace in " + o.trace));
  // The traced processes counted what they kept; what the database holds is
  // what was stored. Fewer stored means writes failed (the tracer said why).
  const uint64_t kept = counters[std::string(store::counters::kStats)][std::string(store::counters::kFindings)];
  if (session->UnstoredSummary().empty() && kept > stored) {
    fmt::print(stderr,
               "streamcheck run: the traced program found {} findings but only {} were stored in {} (writes "
               "failed: see the tracer's messages above)\n",
               kept, stored, o.db);
    return kExitUsage;
  }
  return ExitCodeAfterFindings("run", program_status, false, report.findings.size(), o.error_exitcode, *session);
}

// Wrapped at word boundaries beside the name's column.
std::string NameAndMeaning(std::string_view name, std::string_view meaning, size_t column) {
  std::string out;
  std::string line = fmt::format("  {:<{}}", name, column - 2);
  std::istringstream words{std::string(meaning)};
  for (std::string word; words >> word;) {
    if (line.size() + 1 + word.size() > 100) out += line + "\n", line = std::string(column, ' ');
    line += " " + word;
  }
  return out + line + "\n";
}

// `run --help-debug`: what looks inside the tracer, for us and for bug
// reports, apart from the options a user needs (`run --help`).
std::string DebugHelp() {
  std::string text =
      "STREAMCHECK_DEBUG=SWITCH[,SWITCH...] looks inside the tracer (tracer/debug/debug_switches.def):\n";
  for (const tracer::DebugSwitchInfo& s : tracer::kDebugSwitches) text += NameAndMeaning(s.name, s.meaning, 24);
  text += "\nEnvironment variables (tracer/environment.def; `run` sets the first eleven for the processes it traces):\n";
  for (const environment::VariableInfo& v : environment::kVariables) text += NameAndMeaning(v.name, v.meaning, 30);
  return text;
}

}  // namespace

void AddRunCommand(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand(
      "run",
      "Run a CUDA program (C++, PyTorch, ...) under the tracer and report stream-ordering races.\n"
      "Its stdin/stdout/stderr pass through; the exit status is the program's (128+N when killed by "
      "signal N), or --error-exitcode when there are findings. Findings go to the database as they "
      "are found, so a crash of the program loses none. PyTorch programs also get aten op names, "
      "Python stacks, exact tensor bytes and caching-allocator checks from the PyTorch plugin where it "
      "was built (docs/PYTORCH.md; STREAMCHECK_FRAMEWORKS=0 turns it off).");
  cmd->add_option("--db", o->db, "SQLite findings database to add this run to")->capture_default_str();
  cmd->add_option("--trace", o->trace, "also keep the full trace here, for `streamcheck replay`");
  cmd->add_option("--suppressions", o->suppressions, "suppressions file (see docs/SUPPRESSIONS.md)");
  AddErrorExitCodeOption(cmd, &o->error_exitcode, "the program's own status");
  AddBusyTimeoutOption(cmd, &o->busy_timeout_ms);
  cmd->add_flag("--no-stacks", o->no_stacks, "do not capture host stacks (faster, findings without stacks)");
  // "--precise" alone is "--precise=*" (CLI11's {default} of a flag).
  cmd->add_flag("--precise{*}", o->precise,
                "instrument kernels on the device (Compute Sanitizer API) and check the bytes they really "
                "touch instead of fast mode's guess; --precise=GLOB only kernels whose demangled name matches "
                "(docs/PRECISE.md)");
  // "--forbid-default-stream" alone is "=*": every object's work.
  cmd->add_flag("--forbid-default-stream{*}", o->forbid_default_stream,
                "report work issued to the legacy or per-thread default stream (rule default-stream-use, a warning: "
                "kernel launches, async copies and memsets, host functions), one finding per call site; "
                "--forbid-default-stream=GLOB only work issued by the objects (executable, shared libraries) whose "
                "path matches, e.g. '*libmylib*' (rules/docs/default-stream-use.md)");
  cmd->add_flag("--no-host-guards", o->no_host_guards,
                "do not guard host-visible memory while the device works on it: the host's own reads and "
                "writes of it go unobserved (docs/HOST_GUARDS.md); the run records that they were off");
  cmd->add_flag("-q,--quiet", o->quiet, "print only the summary line");
  AddColorOption(cmd, &o->color);
  cmd->add_option("CMD", o->command, "the program and its arguments, after --")->required();
  cmd->add_flag_callback(
      "--help-debug",
      [] {
        std::cout << DebugHelp();
        throw CLI::Success();
      },
      "print the debug switches and environment variables that look inside the tracer, and exit");
  cmd->footer("\nDebug switches and environment variables: streamcheck run --help-debug");
  cmd->callback([o] { SetExitCode(Run(*o)); });
}

}  // namespace streamcheck::cli
