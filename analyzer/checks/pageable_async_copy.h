// pageable-async-copy: an async copy into pageable host memory (malloc, new, a
// local array, std::vector) whose destination the host touches (reads,
// writes, frees, lets go out of scope) before synchronizing with the copy's
// stream: correct only if the staged copy happened to run synchronously.
// Synchronized first, it is not reported; from pageable memory neither: the
// driver has read the source when the call returns (rules/docs/pageable-async-copy.md).
#pragma once

#include "analyzer/lint_check.h"

namespace streamcheck::lint {

class PageableAsyncCopyCheck : public LintCheck {
 public:
  PageableAsyncCopyCheck();
  void OnHostAccess(const HostAccess& access, const FlowState& before, CheckContext& ctx) override;
  void OnFree(const FreeEvent& free, const FlowState& before, CheckContext& ctx) override;
};

}  // namespace streamcheck::lint
