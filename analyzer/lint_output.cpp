#include "analyzer/lint_output.h"

#include <cstdio>
#include <iostream>

#include "report/output_file.h"
#include "report/report_model.h"
#include "report/sarif_report.h"

namespace streamcheck::lint {

std::unique_ptr<LintOutput> LintOutput::Open(const OutputOptions& options, std::string* error) {
  store::SessionConfig config;
  config.db_path = options.db_path;
  config.run.mode = "lint";
  config.run.command = options.command;
  config.suppressions_path = options.suppressions_path;
  config.open.busy_timeout_ms = options.busy_timeout_ms;
  config.open.check_integrity = true;  // never add to a damaged file
  config.frames_name_sources = true;   // the linted files: the run's sources
  std::unique_ptr<store::RunSession> session = store::RunSession::Open(config, error);
  if (!session) return nullptr;
  return std::unique_ptr<LintOutput>(new LintOutput(options, std::move(session)));
}

namespace {

// What could not be parsed and what was analysed anyway. Nothing left out
// goes unsaid: every function with an error in it, and a fatal error.
void ReportParse(const LintResult& r) {
  const char* file = r.file.c_str();
  if (!r.dropped_flags.empty()) {
    std::string flags;
    for (const std::string& f : r.dropped_flags) flags += " " + f;
    std::fprintf(stderr, "streamcheck lint: %s: flags clang does not know, left out:%s\n", file, flags.c_str());
  }
  if (r.compiled) return;
  std::string first = r.first_error_message.empty() ? std::string("the compiler failed") : r.first_error_message;
  if (!r.first_error.file.empty()) first = r.first_error.file + ":" + std::to_string(r.first_error.line) + ": " + first;
  if (r.functions_analysed == 0) {
    std::fprintf(stderr, "streamcheck lint: %s: does not compile (%s); nothing analysed\n", file, first.c_str());
  } else if (!r.incomplete()) {
    std::fprintf(stderr,
                 "streamcheck lint: %s: does not compile as a whole (%s), but only in code the analysis does not "
                 "need (device code, functions no host function calls); all %d functions analysed\n",
                 file, first.c_str(), r.functions_total);
  } else {
    std::fprintf(stderr, "streamcheck lint: %s: does not compile as a whole (%s); analysed %d of %d functions\n",
                 file, first.c_str(), r.functions_analysed, r.functions_total);
  }
  for (const SkippedFunction& f : r.skipped)
    std::fprintf(stderr, "streamcheck lint: %s:%u: `%s` not analysed: %s\n", f.at.file.c_str(), f.at.line,
                 f.name.c_str(), f.error.c_str());
  if (r.fatal_error) {
    std::fprintf(stderr,
                 "streamcheck lint: %s: fatal error at %s:%u (%s): clang reports no error after it, so the code "
                 "after it was analysed only where it parsed cleanly\n",
                 file, r.fatal_at.file.c_str(), r.fatal_at.line, r.fatal_message.c_str());
  }
}

// The exit status the analysis' completeness asks for (0 when complete).
int CompletenessStatus(const std::vector<LintResult>& results, bool allow_partial) {
  int files = 0, functions = 0;
  bool nothing_analysed = false;
  for (const LintResult& r : results) {
    if (!r.incomplete()) continue;
    ++files;
    functions += static_cast<int>(r.skipped.size());
    nothing_analysed = nothing_analysed || (!r.compiled && r.functions_analysed == 0);
  }
  if (files == 0) return 0;
  std::fprintf(stderr,
               "streamcheck lint: the analysis is incomplete: %d file%s did not compile as a whole (%d function%s "
               "named above not analysed or followed)%s\n",
               files, files == 1 ? "" : "s", functions, functions == 1 ? "" : "s",
               allow_partial ? "; --allow-partial accepts it" : "");
  if (allow_partial) return 0;
  return nothing_analysed ? 2 : kExitIncomplete;
}

}  // namespace

int LintOutput::Write(const std::vector<LintResult>& results) {
  // Every finding passes the session (suppressions, then the database); what
  // it keeps is printed.
  store::ProcessOutput* output = session_->AddProcess(std::nullopt);
  std::vector<const LintDiagnostic*> kept;
  uint64_t local = 0;
  for (const LintResult& r : results) {
    for (const LintDiagnostic& d : r.diagnostics) {
      output->OnFinding(++local, d.finding);
      if (!output->WasSuppressed(local)) kept.push_back(&d);
    }
  }
  const store::FindingTally& tally = output->tally();
  if (tally.suppressed != 0)
    std::fprintf(stderr, "streamcheck lint: %llu finding(s) suppressed by %s\n",
                 static_cast<unsigned long long>(tally.suppressed), options_.suppressions_path.c_str());
  for (const LintResult& r : results) {
    if (!r.compiler_output.empty()) std::fputs(r.compiler_output.c_str(), stderr);
    ReportParse(r);
    for (const LintNote& n : r.budget_notes)
      std::fprintf(stderr, "%s:%u:%u: note: %s\n", n.at.file.c_str(), n.at.line, n.at.column, n.message.c_str());
  }
  const int completeness = CompletenessStatus(results, options_.allow_partial);
  int status = completeness != 0 ? completeness : kept.empty() ? 0 : 1;
  session_->FinishProcess(output, nullptr);
  // What a lock kept out of the database waits beside it (store/pending_writes.h):
  // said, and not a success, as replay and run say it.
  session_->Settle();
  const std::string unstored = session_->UnstoredSummary();
  if (!unstored.empty()) status = 2;
  session_->End(status);

  if (options_.format == "text") {
    for (const LintDiagnostic* d : kept) std::fputs(RenderText(*d, options_.color).c_str(), stdout);
    // The count after the warnings, not inside one where stdout's buffer filled (one pipe for both).
    std::fflush(stdout);
    if (!kept.empty()) std::fprintf(stderr, "%zu warning%s generated.\n", kept.size(), kept.size() == 1 ? "" : "s");
  } else {
    // The same exporter as `streamcheck report --format sarif`, fed from memory.
    report::ReportData report;
    report.db_path = options_.db_path;
    for (const LintDiagnostic* d : kept) report.findings.push_back(report::InMemoryFinding(d->finding));
    report::WriteSarifReport(report, std::cout);
  }
  std::string write_error;
  if (!report::FlushStandardOutput(&write_error)) {
    std::fprintf(stderr, "streamcheck lint: %s\n", write_error.c_str());
    status = 2;
  }
  if (!unstored.empty()) {
    std::fprintf(stderr, "streamcheck lint: %s\n", unstored.c_str());
  } else if (session_->failed_writes() != 0) {
    std::fprintf(stderr, "streamcheck lint: writing to %s failed (%s); %llu of %llu findings were stored\n",
                 options_.db_path.c_str(), session_->first_error().c_str(),
                 static_cast<unsigned long long>(tally.stored), static_cast<unsigned long long>(tally.kept));
    status = 2;
  }
  if (std::fflush(stderr) != 0 || std::ferror(stderr)) status = 2;  // the diagnostics' count, compiler errors
  return status;
}

}  // namespace streamcheck::lint
