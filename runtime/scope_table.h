// Per-test scopes (docs/SCOPES.md): a host thread opens and closes named
// scopes (streamcheck_scope_begin / _end, kScopeBegin / kScopeEnd records),
// nested as a stack. An operation belongs to the scopes open on its thread
// when it was issued, even when the device runs it later; the host's own
// access (a guard page's fault) to those open on the accessing thread. A
// thread with none open works in the scopes of the thread that opened one
// last, while it has them open: the test that is running, for the threads
// a test's work runs on without opening scopes (PyTorch's autograd engine
// runs a backward pass's kernels on threads of its own).
//
// A scope is known by its path, the names from the outermost in, interned
// once: a site carries one id, so the same race in two tests is two
// findings (FindingKey compares sites).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/ids.h"

namespace streamcheck {

class SymbolTable;

class ScopeTable {
 public:
  // Deeper nesting, or more distinct paths, than these is a program that
  // opens scopes in a loop and never closes them: the thread stays in the
  // scope it is in (counted by the caller), and its ends still balance.
  static constexpr size_t kMaxDepth = 64;
  static constexpr size_t kMaxPaths = size_t{1} << 20;

  enum class Change : uint8_t { kDone, kTooDeep, kTooMany, kNoneOpen };
  // `thread` opens the scope named `name` inside the one it is in.
  Change Begin(ThreadId thread, StringId name);
  // `thread` closes its innermost scope.
  Change End(ThreadId thread);

  // The innermost scope `thread` works in (its own, else the last opener's):
  // 0 outside every scope. Inline: every site asks (the common case, no
  // scope open anywhere, one compare).
  uint32_t Current(ThreadId thread) const {
    if (open_.empty()) [[likely]] return 0;
    return CurrentSlow(thread);
  }
  // Whether `scope` is `outer` or nested inside it; every scope is inside 0.
  bool Within(uint32_t scope, uint32_t outer) const;
  // "tests/a.py::test_x > warm-up": the path's names, outermost first; "" for 0.
  std::string Text(uint32_t scope, const SymbolTable& symbols) const;
  // Scopes still open, over every thread.
  size_t OpenCount() const;

 private:
  uint32_t CurrentSlow(ThreadId thread) const;

  struct Path {
    uint32_t parent = 0;
    StringId name = 0;
  };
  std::vector<Path> paths_{Path{}};  // id 0: outside every scope
  std::unordered_map<uint64_t, uint32_t> ids_;  // parent << 32 | name -> id
  // Each thread's open scopes, innermost last; a thread with none has no entry.
  std::unordered_map<ThreadId, std::vector<uint32_t>> open_;
  ThreadId last_opener_ = 0;  // the thread of the last Begin
};

}  // namespace streamcheck
