// What streamcheck_scope_errors answers (include/streamcheck/scope.h): the
// error findings of a scope, in the words every report uses, each
// occurrence once. The engine says which findings were made in a scope and
// how often (Engine::ForEachFindingInScope); this sink, given every finding
// the suppressions kept (RunSession's `also`), keeps the words of the errors.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "runtime/engine.h"
#include "runtime/finding.h"

namespace streamcheck::tracer {

class ScopeFindings final : public FindingSink {
 public:
  // On the analysis worker (or wherever the engine runs).
  void OnFinding(uint64_t local_id, const Finding& finding) override;
  void OnFindingCount(uint64_t, uint64_t) override {}

  // With the engine held still (the worker paused): the errors made in
  // `scope` (or a scope inside it) whose count grew since they were last
  // reported, written into `text` (cut to `size`, NUL-terminated). Returns
  // how many.
  long Report(const Engine& engine, uint32_t scope, char* text, size_t size);
  // A fresh engine (after fork) numbers its findings from 1 again.
  void Clear();

 private:
  struct Error {
    std::string words;      // headline, the sides' scopes, fix
    uint64_t reported = 0;  // occurrences reported so far
  };
  std::mutex mutex_;  // OnFinding on the worker, Report on a program thread
  std::unordered_map<uint64_t, Error> errors_;
};

// A finding in the words of a failed test: "rule: headline", the scope of
// each side when they are not one, "fix: ...".
std::string ScopeErrorWords(const Finding& finding);

}  // namespace streamcheck::tracer
