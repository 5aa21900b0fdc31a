#include "report/report_command.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "report/codeclimate_report.h"
#include "report/html_report.h"
#include "report/json_report.h"
#include "report/output_file.h"
#include "report/sarif_report.h"
#include "report/text_report.h"
#include "rules/catalogue.h"
#include "store/baseline.h"
#include "store/database.h"
#include "store/file_identity.h"
#include "store/suppressions.h"

namespace streamcheck::report {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;

int Fail(std::ostream& err, std::string_view command, const std::string& message) {
  fmt::print(err, "streamcheck {}: {}\n", command, message);
  return kExitUsage;
}

bool SelectRuns(store::Store& store, std::optional<int64_t> run, std::vector<store::StoredRun>* runs,
                std::optional<int64_t>* selected, std::string* error) {
  if (!store::ReadRuns(store, runs, error)) return false;
  *selected = run;
  if (run && *run == kLatestRun) {
    if (runs->empty()) {
      *error = fmt::format("{}: has no runs", store.path());
      return false;
    }
    *selected = runs->back().id;
  }
  if (*selected) {
    std::erase_if(*runs, [&](const store::StoredRun& r) { return r.id != **selected; });
    if (runs->empty()) {
      *error = fmt::format("{}: no run {}", store.path(), **selected);
      return false;
    }
  }
  return true;
}

// The output may be none of the inputs: `report db -o db` once emptied the
// database, and `-o db-wal` overwrote the commits its write-ahead log held.
// Checked before anything is opened for writing.
bool OutputIsAnInput(const ReportRequest& r, std::string* error) {
  if (r.output_path.empty()) return false;
  const std::pair<const std::string*, const char*> databases[] = {
      {&r.db_path, "the database"}, {&r.baseline_path, "the --baseline database"}};
  for (const auto& [input, what] : databases) {
    if (!input->empty() && store::IsDatabaseFile(*input, r.output_path)) {
      *error = fmt::format("-o {} is {} it reads, or one of SQLite's files beside it (-wal, -shm, -journal); "
                           "nothing was written",
                           r.output_path, what);
      return true;
    }
  }
  if (!r.suppressions_path.empty() && store::SameFile(r.suppressions_path, r.output_path)) {
    *error = fmt::format("-o {} is the suppressions file it reads; nothing was written", r.output_path);
    return true;
  }
  return false;
}

// --scope GLOB: a side of the finding was made in a scope the glob matches.
bool InScope(const Finding& f, const std::string& glob) {
  return std::any_of(f.accesses.begin(), f.accesses.end(),
                     [&](const FindingAccess& a) { return !a.scope.empty() && GlobMatch(glob, a.scope); });
}

bool WriteReport(const ReportData& data, const std::string& format, std::ostream& out) {
  if (format == "text") return WriteTextReport(data, out);
  if (format == "summary") return WriteSummaryReport(data, out);
  if (format == "json") return WriteJsonReport(data, out);
  if (format == "sarif") return WriteSarifReport(data, out);
  if (format == "codeclimate") return WriteCodeClimateReport(data, out);
  return WriteHtmlReport(data, out);
}

}  // namespace

int RunReport(const ReportRequest& request, std::ostream& out, std::ostream& err) {
  const std::string_view command = "report";
  if (request.format != "text" && request.format != "summary" && request.format != "json" &&
      request.format != "sarif" && request.format != "codeclimate" && request.format != "html")
    return Fail(err, command, "unknown format '" + request.format + "' (text, summary, json, sarif, codeclimate or html)");
  if (!request.group_by.empty() && request.group_by != "test")
    return Fail(err, command, "unknown grouping '" + request.group_by + "' (test)");
  if (!request.rule.empty() && rules::Find(request.rule) == nullptr)
    return Fail(err, command, "unknown rule '" + request.rule + "' (`streamcheck rules` lists them)");
  if (request.run && *request.run <= 0 && *request.run != kLatestRun)
    return Fail(err, command, fmt::format("no run {}: run ids are positive (or 'last')", *request.run));
  std::string error;
  if (OutputIsAnInput(request, &error)) return Fail(err, command, error);

  std::optional<SuppressionList> suppressions;
  if (!request.suppressions_path.empty()) {
    suppressions = SuppressionList::Load(request.suppressions_path, &error);
    if (!suppressions) return Fail(err, command, error);
  }
  std::unique_ptr<store::Store> baseline;
  if (!request.baseline_path.empty()) {
    baseline = store::Store::OpenExisting(request.baseline_path, &error);
    if (!baseline) return Fail(err, command, "baseline " + error);
  }
  std::unique_ptr<store::Store> store = store::Store::OpenExisting(request.db_path, &error);
  if (!store) return Fail(err, command, error);

  ReportData data;
  data.db_path = request.db_path;
  data.color = request.color;
  data.verbose = request.verbose;
  data.group_by_test = request.group_by == "test";
  store::FindingQuery query;
  query.rule = request.rule;
  query.by_test = data.group_by_test;
  if (!SelectRuns(*store, request.run, &data.runs, &query.run, &error)) return Fail(err, command, error);
  std::vector<int64_t> run_ids;
  if (query.run) run_ids.push_back(*query.run);
  for (const store::StoredRun& r : data.runs)
    if (!ReadProcesses(*store, r.id, &data.processes[r.id], &error)) return Fail(err, command, error);
  std::set<std::string> roots;
  if (!store::ReadSourceRoots(*store, run_ids, &roots, &error)) return Fail(err, command, error);
  for (const std::string& root : roots) data.source_roots.push_back(request.path_map.Map(root));
  data.source_roots.insert(data.source_roots.end(), request.source_roots.begin(), request.source_roots.end());

  // The findings are read from the store as the report is written, one at a
  // time, each through the filters; then the same race found by several
  // ranks of a run becomes one (its findings come together).
  std::optional<store::FingerprintLookup> known;
  if (baseline) known.emplace(*baseline);
  std::string read_error;
  size_t reported = 0;
  query.ranks_together = true;
  data.source = [&](const FindingVisitor& visit) {
    reported = 0;
    const FindingVisitor count_and_visit = [&](const store::StoredFinding& f) {
      ++reported;
      visit(f);
    };
    RankFolder folder(count_and_visit);
    const bool ok = store::ForEachFinding(
        *store, query,
        [&](store::StoredFinding& f) {
          if (known) {
            const std::optional<bool> old = known->Contains(f.finding.fingerprint);
            if (!old) {
              read_error = "baseline " + known->error();
              return false;
            }
            if (*old) return true;
          }
          request.path_map.Apply(&f.finding);
          if (suppressions && suppressions->Suppressed(f.finding)) return true;
          if (!request.scope.empty() && !InScope(f.finding, request.scope)) return true;
          folder.Add(f);
          return true;
        },
        &read_error) && read_error.empty();
    folder.Finish();
    return ok;
  };

  std::unique_ptr<OutputFile> file;
  if (!request.output_path.empty()) {
    file = OutputFile::Create(request.output_path, &error);
    if (!file) return Fail(err, command, error);
  }
  std::ostream& target = file ? file->stream() : out;
  if (!WriteReport(data, request.format, target)) {
    return Fail(err, command,
                read_error + (file ? fmt::format("; {} was left as it was", request.output_path)
                                   : "; the report above is incomplete"));
  }
  if (file && !file->Commit(&error)) return Fail(err, command, error);
  if (!file) {
    out.flush();
    if (!out) return Fail(err, command, "cannot write the report to standard output");
  }
  return reported == 0 ? kExitOk : request.findings_exit_code;
}

}  // namespace streamcheck::report
