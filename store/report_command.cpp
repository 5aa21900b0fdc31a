#include "store/report_command.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <sys/stat.h>

#include <filesystem>

#include "rules/catalogue.h"
#include "store/baseline.h"
#include "store/database.h"
#include "store/html_report.h"
#include "store/json_report.h"
#include "store/merge.h"
#include "store/output_file.h"
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
// otherwise change a database (a CI artifact may not even be writable: a
// read-only folder or mount is read as it is), and they refuse a damaged one.
std::unique_ptr<Store> OpenExisting(const std::string& path, std::string* error) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    *error = path + ": no such file";
    return nullptr;
  }
  if (!S_ISREG(info.st_mode)) {
    *error = path + ": not a regular file";
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
  if (run && *run == kLatestRun) {
    if (runs->empty()) {
      *error = fmt::format("{}: has no runs", store.path());
      return false;
    }
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

// The output may be none of the inputs: `report db -o db` once emptied the
// database. Checked before anything is opened for writing.
bool OutputIsAnInput(const ReportRequest& r, std::string* error) {
  if (r.output_path.empty()) return false;
  const std::pair<const std::string*, const char*> inputs[] = {
      {&r.db_path, "the database"}, {&r.baseline_path, "the --baseline database"},
      {&r.suppressions_path, "the suppressions file"}};
  for (const auto& [input, what] : inputs) {
    if (!input->empty() && SameFile(*input, r.output_path)) {
      *error = fmt::format("-o {} is {} it reads; nothing was written", r.output_path, what);
      return true;
    }
  }
  return false;
}

bool WriteReport(const ReportData& data, const std::string& format, std::ostream& out) {
  if (format == "text") return WriteTextReport(data, out);
  if (format == "summary") return WriteSummaryReport(data, out);
  if (format == "json") return WriteJsonReport(data, out);
  if (format == "sarif") return WriteSarifReport(data, out);
  return WriteHtmlReport(data, out);
}

}  // namespace

int RunReport(const ReportRequest& request, std::ostream& out, std::ostream& err) {
  const std::string_view command = "report";
  if (request.format != "text" && request.format != "summary" && request.format != "json" &&
      request.format != "sarif" && request.format != "html")
    return Fail(err, command, "unknown format '" + request.format + "' (text, summary, json, sarif or html)");
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
  std::unique_ptr<Store> baseline;
  if (!request.baseline_path.empty()) {
    baseline = OpenExisting(request.baseline_path, &error);
    if (!baseline) return Fail(err, command, "baseline " + error);
  }
  std::unique_ptr<Store> store = OpenExisting(request.db_path, &error);
  if (!store) return Fail(err, command, error);

  ReportData data;
  data.db_path = request.db_path;
  data.color = request.color;
  data.verbose = request.verbose;
  FindingQuery query;
  query.rule = request.rule;
  if (!SelectRuns(*store, request.run, &data.runs, &query.run, &error)) return Fail(err, command, error);
  std::vector<int64_t> run_ids;
  if (query.run) run_ids.push_back(*query.run);
  for (const StoredRun& r : data.runs)
    if (!ReadProcesses(*store, r.id, &data.processes[r.id], &error)) return Fail(err, command, error);
  std::set<std::string> roots;
  if (!ReadSourceRoots(*store, run_ids, &roots, &error)) return Fail(err, command, error);
  data.source_roots.assign(roots.begin(), roots.end());
  data.source_roots.insert(data.source_roots.end(), request.source_roots.begin(), request.source_roots.end());

  // The findings are read from the store as the report is written, one at a
  // time, each through the filters; then the same race found by several
  // ranks of a run becomes one (its findings come together).
  std::optional<FingerprintLookup> known;
  if (baseline) known.emplace(*baseline);
  std::string read_error;
  size_t reported = 0;
  query.ranks_together = true;
  data.source = [&](const FindingVisitor& visit) {
    reported = 0;
    const FindingVisitor count_and_visit = [&](const StoredFinding& f) {
      ++reported;
      visit(f);
    };
    RankFolder folder(count_and_visit);
    const bool ok = ForEachFinding(
        *store, query,
        [&](StoredFinding& f) {
          if (known) {
            const std::optional<bool> old = known->Contains(f.finding.fingerprint);
            if (!old) {
              read_error = "baseline " + known->error();
              return false;
            }
            if (*old) return true;
          }
          if (suppressions && suppressions->Suppressed(f.finding)) return true;
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

int RunMerge(const std::string& output, const std::vector<std::string>& inputs, std::ostream& err,
             int busy_timeout_ms) {
  const std::string_view command = "merge";
  if (inputs.empty()) return Fail(err, command, "no input databases");
  std::string error;
  // Every input is checked and opened before the output is touched.
  std::vector<std::unique_ptr<Store>> stores;
  for (const std::string& path : inputs) {
    if (SameFile(path, output))
      return Fail(err, command, path + ": is the output database; nothing was written");
    std::unique_ptr<Store> in = OpenExisting(path, &error);
    if (!in) return Fail(err, command, error);
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
    return Fail(err, command, error);
  }
  // All inputs in one transaction: a failure leaves the output as it was.
  MergeStats stats;
  {
    Transaction all(out->database());
    if (!all.ok()) {
      error = fmt::format("{}: cannot write: {}", output, out->database().error());
      discard();
      return Fail(err, command, error);
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
    return Fail(err, command, error);
  }
  fmt::print(err, "streamcheck merge: {} run(s), {} process(es), {} finding(s) into {}\n",
             stats.runs, stats.processes, stats.findings, output);
  return kExitOk;
}

}  // namespace streamcheck::store
