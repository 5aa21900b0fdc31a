#include "analyzer/launch_config_braces.h"

#include <cctype>
#include <vector>

namespace streamcheck::lint {
namespace {

// Past a comment or a string/character literal starting at `i`, or `i` itself.
size_t SkipInert(llvm::StringRef t, size_t i) {
  if (t.substr(i).starts_with("//")) {
    const size_t end = t.find('\n', i);
    return end == llvm::StringRef::npos ? t.size() : end;
  }
  if (t.substr(i).starts_with("/*")) {
    const size_t end = t.find("*/", i + 2);
    return end == llvm::StringRef::npos ? t.size() : end + 2;
  }
  if (t[i] == '"' || t[i] == '\'') {
    const char quote = t[i];
    for (size_t j = i + 1; j < t.size(); ++j) {
      if (t[j] == '\\') {
        ++j;
      } else if (t[j] == quote || t[j] == '\n') {
        return j + 1;
      }
    }
    return t.size();
  }
  return i;
}

}  // namespace

std::optional<std::string> BracedLaunchConfigAsParens(llvm::StringRef text) {
  if (!text.contains("<<<")) return std::nullopt;
  std::string out = text.str();
  bool changed = false;
  for (size_t i = 0; i < text.size();) {
    if (const size_t past = SkipInert(text, i); past != i) {
      i = past;
      continue;
    }
    if (!text.substr(i).starts_with("<<<")) {
      ++i;
      continue;
    }
    // Inside one configuration: a `{` that opens an argument (after `<<<` or
    // a top-level comma, blanks between) is matched to its `}`.
    i += 3;
    int depth = 0;           // (), [] and {} nesting within the configuration
    bool arg_start = true;   // only blanks since the argument began
    std::vector<size_t> opened;  // braces being made parentheses, innermost last
    for (; i < text.size(); ++i) {
      if (const size_t past = SkipInert(text, i); past != i) {
        i = past - 1;
        continue;
      }
      const char c = text[i];
      if (depth == 0 && text.substr(i).starts_with(">>>")) break;
      if (c == '{' && (arg_start || !opened.empty())) {
        if (arg_start && depth == 0) {
          opened.push_back(i);
        } else {
          opened.push_back(std::string::npos);  // a brace within one: left as written
        }
        ++depth;
      } else if (c == '}') {
        if (!opened.empty()) {
          if (opened.back() != std::string::npos) {
            out[opened.back()] = '(';
            out[i] = ')';
            changed = true;
          }
          opened.pop_back();
        }
        --depth;
      } else if (c == '(' || c == '[' || c == '{') {
        ++depth;
      } else if (c == ')' || c == ']') {
        --depth;
      }
      if (c == ',' && depth == 0) {
        arg_start = true;
      } else if (!std::isspace(static_cast<unsigned char>(c))) {
        arg_start = false;
      }
      if (depth < 0) break;  // not a configuration after all
    }
  }
  return changed ? std::optional<std::string>(std::move(out)) : std::nullopt;
}

}  // namespace streamcheck::lint
