#include "report/sarif_report.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "report/finding_words.h"
#include "report/json_stream.h"

#include "rules/catalogue.h"

namespace streamcheck::report {
namespace {

using nlohmann::json;

std::string Level(const std::string& severity) {
  return severity == "error" || severity == "warning" || severity == "note" ? severity : "warning";
}

json PhysicalLocation(const ResolvedFrame& f) {
  json region = json::object();
  if (f.line > 0) region["startLine"] = f.line;
  if (f.line > 0 && f.column > 0) region["startColumn"] = f.column;
  json location = {{"artifactLocation", {{"uri", SarifUri(f.file)}}}};
  if (!region.empty()) location["region"] = region;
  return location;
}

// nullopt-like empty json when the access has no source file.
json Location(const FindingAccess& a, const std::string& text) {
  const ResolvedFrame* frame = PrimaryFrame(a);
  if (frame == nullptr || frame->file.empty()) return nullptr;
  return {{"physicalLocation", PhysicalLocation(*frame)}, {"message", {{"text", text}}}};
}

json CodeFlow(const Finding& f) {
  json thread_flows = json::array();
  for (const FindingAccess& a : f.accesses) {
    json locations = json::array();
    // Outermost frame first: a code flow reads top-down like the program ran.
    for (auto it = a.stack.rbegin(); it != a.stack.rend(); ++it) {
      json location = {{"message", {{"text", it->function.empty() ? Hex(it->pc) : it->function}}}};
      if (!it->file.empty()) location["physicalLocation"] = PhysicalLocation(*it);
      locations.push_back({{"location", location}});
    }
    if (locations.empty()) continue;
    thread_flows.push_back(
        {{"message", {{"text", (a.role.empty() ? "" : a.role + " access: ") + DescribeAccess(a)}}},
         {"locations", locations}});
  }
  if (thread_flows.empty()) return nullptr;
  return {{"threadFlows", thread_flows}};
}

json RuleDescriptor(const rules::Rule& r) {
  std::string level(rules::SeverityName(r.severity));
  return {{"id", r.id},
          {"name", r.id},
          {"shortDescription", {{"text", r.summary}}},
          {"fullDescription", {{"text", r.summary}}},
          {"help", {{"text", r.fix_hint},
                    {"markdown", r.documentation.empty() ? std::string(r.fix_hint)
                                                         : std::string(r.documentation)}}},
          {"defaultConfiguration", {{"level", Level(level)}}}};
}

// One result per finding.
json SarifResult(const store::StoredFinding& s, const std::map<std::string, size_t>& rule_index) {
  const Finding& f = s.finding;
  // The order every report uses: what happened, why, what to do.
  const FindingWords words = DescribeFinding(f);
  std::string text = words.headline + ".";
  if (!words.why.empty()) text += " Why: " + words.why + ".";
  if (!words.fix.empty()) text += " Fix: " + words.fix + ".";
  json result = {{"ruleId", f.rule},
                 {"level", Level(s.severity)},
                 {"message", {{"text", text}}},
                 {"partialFingerprints", {{"streamcheck/v1", f.fingerprint}}},
                 {"occurrenceCount", f.count},
                 {"properties", {{"kind", FindingKindName(f.kind)},
                                 {"confidence", ConfidenceName(f.confidence)}}}};
  if (auto it = rule_index.find(f.rule); it != rule_index.end()) result["ruleIndex"] = it->second;
  // The test the finding belongs to, and each side's when a race crosses two (docs/SCOPES.md).
  if (const std::string test = TestOf(f); !test.empty()) result["properties"]["test"] = test;
  json scopes = json::array();
  for (const FindingAccess& a : f.accesses) scopes.push_back(a.scope.empty() ? json(nullptr) : json(a.scope));
  if (std::any_of(f.accesses.begin(), f.accesses.end(), [](const FindingAccess& a) { return !a.scope.empty(); }))
    result["properties"]["scopes"] = scopes;
  // Code scanning drops results without a location: the later access's
  // source if known, else the earliest side that has one, else the allocation.
  json primary = nullptr;
  size_t primary_index = f.accesses.size();
  for (size_t k = f.accesses.size(); k-- > 0 && primary.is_null();) {
    primary = Location(f.accesses[k], DescribeAccess(f.accesses[k]));
    primary_index = k;
  }
  if (primary.is_null() && !f.buffer.allocation_stack.empty()) {
    FindingAccess allocation;
    allocation.stack = f.buffer.allocation_stack;
    primary = Location(allocation, "allocated here by " + f.buffer.allocated_by);
  }
  if (!primary.is_null()) result["locations"] = json::array({primary});
  json related = json::array();
  for (size_t i = 0; i < f.accesses.size(); ++i) {
    if (i == primary_index) continue;
    json location = Location(f.accesses[i], DescribeAccess(f.accesses[i]));
    if (location.is_null()) continue;
    location["id"] = related.size() + 1;
    related.push_back(location);
  }
  if (!related.empty()) result["relatedLocations"] = related;
  json flow = CodeFlow(f);
  if (!flow.is_null()) result["codeFlows"] = json::array({flow});
  return result;
}

}  // namespace

std::string SarifUri(const std::string& path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri = !path.empty() && path.front() == '/' ? "file://" : "";
  for (unsigned char c : path) {
    const bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                            c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    if (unreserved) {
      uri.push_back(static_cast<char>(c));
    } else {
      uri.push_back('%');
      uri.push_back(kHex[c >> 4]);
      uri.push_back(kHex[c & 15]);
    }
  }
  return uri;
}

bool WriteSarifReport(const ReportData& data, std::ostream& out) {
  json rule_list = json::array();
  std::map<std::string, size_t> rule_index;
  for (const rules::Rule& r : rules::AllRules()) {
    rule_index[std::string(r.id)] = rule_list.size();
    rule_list.push_back(RuleDescriptor(r));
  }
  json run = {{"tool", {{"driver", {{"name", "streamcheck"},
                                    {"version", STREAMCHECK_VERSION},
                                    {"semanticVersion", STREAMCHECK_VERSION},
                                    {"rules", rule_list}}}}},
              {"results", nullptr}};
  // Results come ordered by test (report --group-by test); SARIF has no groups of its own.
  if (data.group_by_test) run["properties"] = {{"groupBy", "test"}};
  // A run that never ended (killed, or still running): the tool's execution
  // did not complete, and its findings are those stored before it stopped.
  if (const std::vector<std::string> notes = UnfinishedRunNotes(data); !notes.empty()) {
    json notifications = json::array();
    for (const std::string& note : notes)
      notifications.push_back({{"level", "warning"}, {"message", {{"text", note}}}});
    run["invocations"] = json::array({{{"executionSuccessful", false}, {"toolExecutionNotifications", notifications}}});
  }
  JsonArrayStream results(out,
                          {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                           {"version", "2.1.0"},
                           {"runs", json::array({run})}},
                          "results");
  const bool ok = data.ForEach([&](const store::StoredFinding& s) { results.Add(SarifResult(s, rule_index)); });
  results.Finish();
  return ok;
}

json SarifReport(const ReportData& data) {
  std::ostringstream out;
  WriteSarifReport(data, out);
  return json::parse(out.str());
}

}  // namespace streamcheck::report
