#include "analyzer/lint_output.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "store/report_command.h"
#include "store/store.h"

namespace streamcheck::lint {
namespace {

std::string HostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return {};
  return buf;
}

bool Store(const std::vector<LintResult>& results, const std::string& path, const OutputOptions& options,
           int exit_status) {
  std::string error;
  std::unique_ptr<store::Store> db = store::Store::Open(path, &error);
  if (db == nullptr) {
    std::fprintf(stderr, "streamcheck-lint: %s\n", error.c_str());
    return false;
  }
  store::RunInfo run;
  run.mode = "lint";
  run.command = options.command;
  run.host = HostName();
  const int64_t id = db->BeginRun(run);
  if (id < 0) {
    std::fprintf(stderr, "streamcheck-lint: %s: %s\n", path.c_str(), db->last_error().c_str());
    return false;
  }
  std::unique_ptr<FindingSink> sink = db->MakeFindingSink(id, 0);
  uint64_t local = 0;
  for (const LintResult& r : results) {
    for (const LintDiagnostic& d : r.diagnostics) sink->OnFinding(++local, d.finding);
  }
  sink.reset();
  db->EndRun(id, exit_status);
  if (db->failed_writes() != 0) {
    std::fprintf(stderr, "streamcheck-lint: %s: %s\n", path.c_str(), db->last_error().c_str());
    return false;
  }
  return true;
}

}  // namespace

bool WriteResults(const std::vector<LintResult>& results, const OutputOptions& options, int exit_status) {
  size_t count = 0;
  for (const LintResult& r : results) count += r.diagnostics.size();
  if (options.format == "text") {
    for (const LintResult& r : results) {
      for (const LintDiagnostic& d : r.diagnostics) std::fputs(RenderText(d, options.color).c_str(), stdout);
    }
    if (count != 0) std::fprintf(stderr, "%zu warning%s generated.\n", count, count == 1 ? "" : "s");
    return options.db_path.empty() || Store(results, options.db_path, options, exit_status);
  }
  // SARIF comes from the store's exporter, so lint and run results read the same.
  std::string path = options.db_path;
  std::filesystem::path temp;
  if (path.empty()) {
    char dir[] = "/tmp/streamcheck-lint-XXXXXX";
    if (mkdtemp(dir) == nullptr) {
      std::perror("streamcheck-lint: mkdtemp");
      return false;
    }
    temp = dir;
    path = (temp / "lint.db").string();
  }
  bool ok = Store(results, path, options, exit_status);
  if (ok) {
    store::ReportRequest request;
    request.db_path = path;
    request.format = "sarif";
    request.run = -1;
    ok = store::RunReport(request, std::cout, std::cerr) != 2;
  }
  if (!temp.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(temp, ec);
  }
  return ok;
}

}  // namespace streamcheck::lint
