#include "analyzer/diagnostic.h"

#include <string_view>

#include "report/text_escape.h"

namespace streamcheck::lint {
namespace {

// Paths and messages (which quote names from the source) may hold control
// bytes: shown escaped, so a name cannot move the cursor or fake a line.
using report::EscapeControl;

std::string Location(const SourcePoint& p) {
  return EscapeControl(p.file) + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
}

void Snippet(const SourcePoint& p, std::string* out) {
  if (p.source_line.empty()) return;
  const std::string number = std::to_string(p.line);
  *out += std::string(number.size() < 5 ? 5 - number.size() : 0, ' ') + number + " | " + p.source_line + "\n";
  std::string pad;
  for (unsigned i = 1; i < p.column && i <= p.source_line.size(); ++i) {
    pad += p.source_line[i - 1] == '\t' ? '\t' : ' ';
  }
  *out += "      | " + pad + "^\n";
}

bool ListHasRule(std::string_view list, std::string_view rule) {
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string_view::npos) end = list.size();
    std::string_view item = list.substr(start, end - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item == rule || item == "*") return true;
    start = end + 1;
  }
  return false;
}

bool LineSuppresses(std::string_view line, std::string_view rule, bool alone) {
  const size_t comment = line.find("//");
  if (comment == std::string_view::npos) return false;
  if (alone && line.substr(0, comment).find_first_not_of(" \t") != std::string_view::npos) return false;
  std::string_view text = line.substr(comment);
  const size_t tag = text.find("streamcheck: ignore[");
  if (tag == std::string_view::npos) return false;
  text = text.substr(tag + 20);
  const size_t close = text.find(']');
  return close != std::string_view::npos && ListHasRule(text.substr(0, close), rule);
}

}  // namespace

std::string RenderText(const LintDiagnostic& d, bool color) {
  const char* bold = color ? "\033[1m" : "";
  const char* magenta = color ? "\033[1;35m" : "";
  const char* black = color ? "\033[1;30m" : "";
  const char* reset = color ? "\033[0m" : "";
  std::string out = std::string(bold) + Location(d.at) + ": " + magenta + "warning: " + reset + bold + EscapeControl(d.message) +
                    " [" + d.rule + "]" + reset + "\n";
  Snippet(d.at, &out);
  for (const LintNote& n : d.notes) {
    out += std::string(bold) + Location(n.at) + ": " + black + "note: " + reset + EscapeControl(n.message) + "\n";
    Snippet(n.at, &out);
  }
  for (const LintFixIt& f : d.fixits) {
    std::string escaped;
    for (char c : f.text) {
      if (c == '\n') {
        escaped += "\\n";
      } else if (c == '"' || c == '\\') {
        escaped += '\\';
        escaped += c;
      } else {
        escaped += c;
      }
    }
    out += "fix-it:\"" + f.at.file + "\":{" + std::to_string(f.at.line) + ":" + std::to_string(f.at.column) + "-" +
           std::to_string(f.at.line) + ":" + std::to_string(f.at.column) + "}:\"" + escaped + "\"\n";
  }
  return out;
}

bool SuppressedByComment(const std::string& line, const std::string& line_above, const std::string& rule) {
  return LineSuppresses(line, rule, false) || LineSuppresses(line_above, rule, true);
}

}  // namespace streamcheck::lint
