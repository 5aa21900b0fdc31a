// A lint diagnostic as printed (clang style: `file:line:col: warning: msg
// [rule]`, notes, fix-its) and as stored (a Finding with origin kStatic).
// Plain data: it outlives the translation unit it came from.
#pragma once

#include <string>
#include <vector>

#include "runtime/finding.h"

namespace streamcheck::lint {

struct SourcePoint {
  std::string file;
  unsigned line = 0;
  unsigned column = 0;
  std::string source_line;  // the text of that line, for the caret snippet
};

struct LintNote {
  SourcePoint at;
  std::string message;
};

// Insert `text` at `at` (clang's parseable fix-it form is printed).
struct LintFixIt {
  SourcePoint at;
  std::string text;
};

struct LintDiagnostic {
  std::string rule;
  SourcePoint at;
  std::string message;
  std::vector<LintNote> notes;
  std::vector<LintFixIt> fixits;
  Finding finding;
  bool helper_own = false;  // reported inside a helper, once for all its calls (CheckContext::MoveIntoHelper)
};

// The diagnostic with snippet and caret, notes and fix-its, newline-terminated.
std::string RenderText(const LintDiagnostic& d, bool color);

// `// streamcheck: ignore[rule-id]` (or `ignore[*]`, or a comma list) on the
// line itself or alone on the line above silences the diagnostic.
bool SuppressedByComment(const std::string& line, const std::string& line_above, const std::string& rule);

}  // namespace streamcheck::lint
