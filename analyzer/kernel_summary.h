// How a kernel uses each pointer parameter (read, write, both, unknown),
// taken from the body of the __global__ function and the device functions it
// calls. Computed once per function and cached.
#pragma once

#include <map>
#include <vector>

#include "runtime/trace_record.h"

namespace clang {
class ASTContext;
class FunctionDecl;
}  // namespace clang

namespace streamcheck::lint {

class KernelSummaries {
 public:
  explicit KernelSummaries(const clang::ASTContext& ctx) : ctx_(ctx) {}
  // One mode per parameter; kRead for non-pointers (they are copied at launch).
  const std::vector<AccessMode>& ParamModes(const clang::FunctionDecl* fn);

 private:
  const clang::ASTContext& ctx_;
  std::map<const clang::FunctionDecl*, std::vector<AccessMode>> cache_;
  int depth_ = 0;
};

}  // namespace streamcheck::lint
