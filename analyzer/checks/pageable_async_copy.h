// pageable-async-copy: an async copy into pageable host memory (malloc, new, a
// local array, std::vector). From pageable memory it is not reported: the
// driver has read the source when the call returns (rules/docs/pageable-async-copy.md).
#pragma once

#include "analyzer/lint_check.h"

namespace streamcheck::lint {

class PageableAsyncCopyCheck : public LintCheck {
 public:
  PageableAsyncCopyCheck();
  void OnAsyncCopy(const AsyncCopy& copy, const FlowState& before, CheckContext& ctx) override;
};

}  // namespace streamcheck::lint
