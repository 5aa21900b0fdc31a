// How a kernel uses each pointer parameter (read, write, both, unknown),
// taken from the body of the __global__ function and the device functions it
// calls. Computed once per function and cached.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "runtime/trace_record.h"

namespace clang {
class ASTContext;
class FunctionDecl;
}  // namespace clang

namespace streamcheck::lint {

class KernelSummaries {
 public:
  // `compile_error` gives a function's first compile error, or nullptr: a
  // kernel whose code does not compile may have lost the very statement that
  // writes a buffer, so its pointer parameters are unknown (may write).
  using CompileError = std::function<const std::string*(const clang::FunctionDecl*)>;
  KernelSummaries(const clang::ASTContext& ctx, CompileError compile_error)
      : ctx_(ctx), compile_error_(std::move(compile_error)) {}
  // One mode per parameter; kRead for non-pointers (they are copied at launch).
  const std::vector<AccessMode>& ParamModes(const clang::FunctionDecl* fn);
  // Per parameter: its memory is touched only by atomics (`atomicAdd(sum, x)`),
  // which concurrent kernels may do to the same address without a race.
  const std::vector<bool>& AtomicOnly(const clang::FunctionDecl* fn);
  // Per parameter: a `bool` parameter, never assigned in the body, inside
  // whose `if (flag)` every access to the parameter's memory lies (a norm
  // accumulated only `if (calculate_norm)`), or -1. A launch passing false
  // there makes no such access.
  const std::vector<int>& FlagGuards(const clang::FunctionDecl* fn);

 private:
  const clang::ASTContext& ctx_;
  CompileError compile_error_;
  std::map<const clang::FunctionDecl*, std::vector<AccessMode>> cache_;
  std::map<const clang::FunctionDecl*, std::vector<bool>> atomic_only_;
  std::map<const clang::FunctionDecl*, std::vector<int>> flag_guards_;
  int depth_ = 0;
};

}  // namespace streamcheck::lint
