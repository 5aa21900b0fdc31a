#include "store/report_command.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <filesystem>

#include "rules/catalogue.h"
#include "store/baseline.h"
#include "store/html_report.h"
#include "store/json_report.h"
#include "store/merge.h"
#include "store/sarif_report.h"
#include "store/suppressions.h"
#include "store/text_report.h"

namespace streamcheck::store {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;

int Fail(std::ostream& err, std::string_view command, const std::string& message) {
  fmt::print(err, "streamcheck {}: {}\n", command, message);
  return kExitUsage;
}

// Reports and merge inputs are read-only: they never create, migrate or
// otherwise change a database (a CI artifact may not even be writable), and
// they refuse a damaged one.
std::unique_ptr<Store> OpenExisting(const std::string& path, std::string* error) {
  if (!std::filesystem::exists(path)) {
    *error = path + ": no such file";
    return nullptr;
  }
  OpenOptions options;
  options.read_only = true;
  options.create_if_missing = false;
  options.check_integrity = true;
  return Store::Open(path, error, options);
}

bool SelectRuns(Store& store, std::optional<int64_t> run, std::vector<StoredRun>* runs,
                std::optional<int64_t>* selected, std::string* error) {
  if (!ReadRuns(store, runs, error)) return false;
  *selected = run;
  if (run && *run == -1) {
    if (runs->empty()) return true;
    *selected = runs->back().id;
  }
  if (*selected) {
    std::erase_if(*runs, [&](const StoredRun& r) { return r.id != **selected; });
    if (runs->empty()) {
      *error = fmt::format("{}: no run {}", store.path(), **selected);
      return false;
    }
  }
  return true;
}

}  // namespace

int RunReport(const ReportRequest& request, std::ostream& out, std::ostream& err) {
  const std::string_view command = "report";
  if (request.format != "text" && request.format != "summary" && request.format != "json" &&
      request.format != "sarif" && request.format != "html")
    return Fail(err, command, "unknown format '" + request.format + "' (text, summary, json, sarif or html)");
  if (!request.rule.empty() && rules::Find(request.rule) == nullptr)
    return Fail(err, command, "unknown rule '" + request.rule + "' (`streamcheck rules` lists them)");

  std::string error;
  std::optional<SuppressionList> suppressions;
  if (!request.suppressions_path.empty()) {
    suppressions = SuppressionList::Load(request.suppressions_path, &error);
    if (!suppressions) return Fail(err, command, error);
  }
  std::set<std::string> baseline;
  if (!request.baseline_path.empty() &&
      !LoadBaselineFingerprints(request.baseline_path, &baseline, &error))
    return Fail(err, command, "baseline " + error);

  std::unique_ptr<Store> store = OpenExisting(request.db_path, &error);
  if (!store) return Fail(err, command, error);

  ReportData data;
  data.db_path = request.db_path;
  FindingQuery query;
  query.rule = request.rule;
  if (!SelectRuns(*store, request.run, &data.runs, &query.run, &error) ||
      !ReadFindings(*store, query, &data.findings, &error))
    return Fail(err, command, error);
  if (!request.baseline_path.empty())
    data.findings = NewSinceBaseline(std::move(data.findings), baseline);
  if (suppressions)
    std::erase_if(data.findings,
                  [&](const StoredFinding& f) { return suppressions->Suppressed(f.finding); });
  FoldAcrossRanks(&data.findings);

  if (request.format == "text") WriteTextReport(data, out);
  else if (request.format == "summary") WriteSummaryReport(data, out);
  else if (request.format == "json") out << JsonReport(data).dump(2) << "\n";
  else if (request.format == "sarif") out << SarifReport(data).dump(2) << "\n";
  else WriteHtmlReport(data, out);
  out.flush();
  if (!out) return Fail(err, command, "cannot write the report");
  return data.findings.empty() ? kExitOk : request.findings_exit_code;
}

int RunMerge(const std::string& output, const std::vector<std::string>& inputs, std::ostream& err) {
  const std::string_view command = "merge";
  if (inputs.empty()) return Fail(err, command, "no input databases");
  std::string error;
  std::unique_ptr<Store> out = Store::Open(output, &error);
  if (!out) return Fail(err, command, error);
  MergeStats stats;
  for (const std::string& path : inputs) {
    std::error_code ec;
    if (std::filesystem::equivalent(path, output, ec))
      return Fail(err, command, path + ": is the output database");
    std::unique_ptr<Store> in = OpenExisting(path, &error);
    if (!in || !MergeInto(*out, *in, &stats, &error)) return Fail(err, command, error);
  }
  fmt::print(err, "streamcheck merge: {} run(s), {} process(es), {} finding(s) into {}\n",
             stats.runs, stats.processes, stats.findings, output);
  return kExitOk;
}

}  // namespace streamcheck::store
