// Suppressions: findings a team has looked at and accepted, listed in a file
// that run, replay and lint read (and report applies too). No SQLite here, so
// the tracer and the lint tool can link it alone. Format: docs/SUPPRESSIONS.md.
//
//   # RULE  [kernel=GLOB] [function=GLOB] [file=GLOB]  -- REASON
//   cross-stream-race kernel=*cublas* -- cuBLAS orders these itself (see #42)
//   *  file=*/third_party/*  -- vendored code, reported upstream
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/finding.h"
#include "store/suppression_index.h"

namespace streamcheck {

struct Suppression {
  std::string rule;      // rule id, or "*" for every rule
  std::string kernel;    // glob on an access's op or framework op; empty = any
  std::string function;  // glob on a function in an access's stack; empty = any
  std::string file;      // glob on a file in an access's stack; empty = any
  std::string reason;    // required: why this is not a bug
  int line = 0;          // in the suppressions file, for messages
};

class SuppressionList {
 public:
  // Errors name the line: "FILE:3: missing ' -- reason'".
  static std::optional<SuppressionList> Parse(std::string_view text, std::string_view file_name,
                                              std::string* error);
  static std::optional<SuppressionList> Load(const std::string& path, std::string* error);

  // A suppression matches when its rule matches and each pattern it gives
  // matches at least one access of the finding.
  bool Suppressed(const Finding& finding) const { return Match(finding) != nullptr; }
  // The first matching suppression, or nullptr. Only the lines the index
  // names as candidates are tried (suppression_index.h).
  const Suppression* Match(const Finding& finding) const;

  const std::vector<Suppression>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

 private:
  std::vector<Suppression> entries_;
  SuppressionIndex index_;
};

// Shell-style glob: '*' matches any run of characters ('/' included), '?' any
// one character; everything else matches itself.
bool GlobMatch(std::string_view pattern, std::string_view text);

}  // namespace streamcheck
