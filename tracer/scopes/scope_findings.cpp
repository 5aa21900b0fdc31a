#include "tracer/scopes/scope_findings.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "report/finding_words.h"

namespace streamcheck::tracer {

std::string ScopeErrorWords(const Finding& f) {
  const report::FindingWords words = report::DescribeFinding(f);
  std::string text = f.rule + ": " + words.headline;
  // A race across two tests names both (the later side's is the one asking).
  const bool across = f.accesses.size() == 2 && f.accesses[0].scope != f.accesses[1].scope;
  for (const FindingAccess& a : f.accesses)
    if (across) text += "\n  " + a.role + " access in " + (a.scope.empty() ? "no scope (outside every test)" : a.scope);
  if (!words.fix.empty()) text += "\n  fix: " + words.fix;
  return text;
}

void ScopeFindings::OnFinding(uint64_t local_id, const Finding& finding) {
  if (SeverityOf(finding) != "error") return;
  std::string words = ScopeErrorWords(finding);
  std::lock_guard<std::mutex> lock(mutex_);
  errors_[local_id].words = std::move(words);
}

long ScopeFindings::Report(const Engine& engine, uint32_t scope, char* text, size_t size) {
  struct New {
    uint64_t local_id;
    uint64_t occurrences;
  };
  std::vector<New> found;
  std::lock_guard<std::mutex> lock(mutex_);
  engine.ForEachFindingInScope(scope, [&](uint64_t local_id, uint64_t count) {
    auto it = errors_.find(local_id);  // not there: not an error, or suppressed
    if (it != errors_.end() && count > it->second.reported) {
      found.push_back({local_id, count - it->second.reported});
      it->second.reported = count;
    }
  });
  std::sort(found.begin(), found.end(), [](const New& a, const New& b) { return a.local_id < b.local_id; });
  std::string all;
  for (const New& n : found) {
    if (!all.empty()) all += "\n";
    all += errors_[n.local_id].words;
    if (n.occurrences > 1) all += "\n  (" + std::to_string(n.occurrences) + " times)";
  }
  if (text != nullptr && size > 0) {
    const size_t kept = std::min(all.size(), size - 1);
    std::memcpy(text, all.data(), kept);
    text[kept] = '\0';
  }
  return static_cast<long>(found.size());
}

void ScopeFindings::Clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  errors_.clear();
}

}  // namespace streamcheck::tracer
