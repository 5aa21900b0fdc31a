#include "report/codeclimate_report.h"

#include <cstdio>
#include <filesystem>

#include "report/finding_words.h"

namespace streamcheck::report {
namespace {

using nlohmann::json;

// Code Climate's severities, GitLab's widget's order: info, minor, major, critical, blocker.
std::string Severity(const std::string& severity) {
  if (severity == "error") return "critical";
  if (severity == "warning") return "major";
  return severity == "note" ? "minor" : "info";
}

// Where the issue is shown, as SARIF's result location: the later access's
// source, else the earliest side that has one, else the allocation's.
const ResolvedFrame* IssueFrame(const Finding& f) {
  for (size_t k = f.accesses.size(); k-- > 0;)
    if (const ResolvedFrame* frame = PrimaryFrame(f.accesses[k]); frame != nullptr && !frame->file.empty())
      return frame;
  for (const ResolvedFrame& frame : f.buffer.allocation_stack)
    if (!frame.file.empty()) return &frame;
  return nullptr;
}

std::string RepositoryPath(const std::string& file, const std::filesystem::path& working_dir) {
  const std::filesystem::path path(file);
  if (!path.is_absolute() || working_dir.empty()) return file;
  const std::filesystem::path relative = path.lexically_normal().lexically_relative(working_dir);
  return relative.empty() || *relative.begin() == ".." ? file : relative.string();
}

// GitLab tells new issues from old ones by fingerprint, between pipelines
// that may check the repository out in different folders: the finding's own
// fingerprint with the working directory taken out of its paths, hashed.
std::string IssueFingerprint(std::string fingerprint, const std::filesystem::path& working_dir) {
  const std::string prefix = working_dir.string() + "/";
  if (!working_dir.empty())
    for (size_t at; (at = fingerprint.find(prefix)) != std::string::npos;) fingerprint.erase(at, prefix.size());
  uint64_t hash = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : fingerprint) hash = (hash ^ c) * 1099511628211ull;
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

json Issue(const store::StoredFinding& s, const std::filesystem::path& working_dir) {
  const Finding& f = s.finding;
  const FindingWords words = DescribeFinding(f);
  std::string body = words.headline + ".";
  if (!words.why.empty()) body += "\n\nWhy: " + words.why + ".";
  if (!words.fix.empty()) body += "\n\nFix: " + words.fix + ".";
  const ResolvedFrame* frame = IssueFrame(f);
  json location = {{"path", frame != nullptr ? RepositoryPath(frame->file, working_dir) : std::string("unknown")},
                   {"lines", {{"begin", frame != nullptr && frame->line > 0 ? frame->line : 1u}}}};
  return {{"type", "issue"},
          {"engine_name", "streamcheck"},
          {"check_name", f.rule},
          {"description", words.headline},
          {"content", {{"body", body}}},
          {"categories", json::array({"Bug Risk"})},
          {"fingerprint", IssueFingerprint(f.fingerprint, working_dir)},
          {"severity", Severity(s.severity)},
          {"location", location}};
}

// false when reading the findings failed partway.
bool CollectIssues(const ReportData& data, const std::string& working_dir, json* issues) {
  const std::filesystem::path base = std::filesystem::path(working_dir).lexically_normal();
  return data.ForEach([&](const store::StoredFinding& s) { issues->push_back(Issue(s, base)); });
}

}  // namespace

json CodeClimateReport(const ReportData& data, const std::string& working_dir) {
  json issues = json::array();
  CollectIssues(data, working_dir, &issues);
  return issues;
}

bool WriteCodeClimateReport(const ReportData& data, std::ostream& out) {
  std::error_code ec;
  const std::string cwd = std::filesystem::current_path(ec).string();
  json issues = json::array();
  const bool read_all = CollectIssues(data, ec ? "" : cwd, &issues);
  out << issues.dump(2) << "\n";
  return read_all && static_cast<bool>(out);
}

}  // namespace streamcheck::report
