#include "store/suppressions.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "rules/catalogue.h"

namespace streamcheck {
namespace {

std::string_view Trim(std::string_view s) {
  size_t begin = s.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return {};
  size_t end = s.find_last_not_of(" \t\r");
  return s.substr(begin, end - begin + 1);
}

bool AnyFrame(const Finding& finding, const std::string& pattern,
              std::string ResolvedFrame::*field) {
  for (const FindingAccess& access : finding.accesses)
    for (const ResolvedFrame& frame : access.stack)
      if (GlobMatch(pattern, frame.*field)) return true;
  return false;
}

bool AnyOp(const Finding& finding, const std::string& pattern) {
  for (const FindingAccess& access : finding.accesses)
    if (GlobMatch(pattern, access.op) ||
        (!access.framework_op.empty() && GlobMatch(pattern, access.framework_op)))
      return true;
  return false;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text) {
  // Iterative matcher with one backtrack point: linear for typical patterns.
  size_t p = 0, t = 0, star = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p, ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++, star_t = t;
    } else if (star != std::string_view::npos) {
      p = star + 1, t = ++star_t;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::optional<SuppressionList> SuppressionList::Parse(std::string_view text,
                                                      std::string_view file_name,
                                                      std::string* error) {
  SuppressionList list;
  int line_number = 0;
  auto fail = [&](std::string_view what) {
    *error = std::string(file_name) + ":" + std::to_string(line_number) + ": " + std::string(what);
    return std::nullopt;
  };
  while (!text.empty()) {
    size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    ++line_number;
    line = Trim(line);
    if (line.empty() || line.front() == '#') continue;

    size_t dashes = line.find(" -- ");
    if (dashes == std::string_view::npos) return fail("missing ' -- reason' (every suppression says why)");
    Suppression s;
    s.line = line_number;
    s.reason = std::string(Trim(line.substr(dashes + 4)));
    if (s.reason.empty()) return fail("empty reason after ' -- '");

    std::istringstream words{std::string(line.substr(0, dashes))};
    words >> s.rule;
    // A typo in a rule id would silently suppress nothing.
    if (s.rule != "*" && rules::Find(s.rule) == nullptr)
      return fail("unknown rule '" + s.rule + "' (`streamcheck rules` lists them; '*' is every rule)");
    for (std::string word; words >> word;) {
      size_t eq = word.find('=');
      std::string key = word.substr(0, eq);
      std::string value = eq == std::string::npos ? "" : word.substr(eq + 1);
      if (value.empty()) return fail("expected KEY=GLOB, got '" + word + "'");
      std::string* pattern = key == "kernel" ? &s.kernel : key == "function" ? &s.function : key == "file" ? &s.file : nullptr;
      if (pattern == nullptr) return fail("unknown key '" + key + "' (kernel, function or file)");
      // Which one was meant? Each key holds one pattern; two lines suppress either.
      if (!pattern->empty())
        return fail("'" + key + "' given twice (one pattern per key: write a line for each, or one glob)");
      *pattern = value;
    }
    list.index_.Add(s, static_cast<uint32_t>(list.entries_.size()));
    list.entries_.push_back(std::move(s));
  }
  return list;
}

std::optional<SuppressionList> SuppressionList::Load(const std::string& path, std::string* error) {
  // A folder opens and reads as empty: it would suppress nothing, silently.
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    *error = path + ": is a directory, not a suppressions file";
    return std::nullopt;
  }
  std::ifstream in(path);
  if (!in) {
    *error = path + ": cannot read the suppressions file";
    return std::nullopt;
  }
  std::stringstream content;
  content << in.rdbuf();
  return Parse(content.str(), path, error);
}

const Suppression* SuppressionList::Match(const Finding& finding) const {
  for (const uint32_t candidate : index_.Candidates(finding)) {
    const Suppression& s = entries_[candidate];
    if (s.rule != "*" && s.rule != finding.rule) continue;
    if (!s.kernel.empty() && !AnyOp(finding, s.kernel)) continue;
    if (!s.function.empty() && !AnyFrame(finding, s.function, &ResolvedFrame::function)) continue;
    if (!s.file.empty() && !AnyFrame(finding, s.file, &ResolvedFrame::file)) continue;
    return &s;
  }
  return nullptr;
}

}  // namespace streamcheck
