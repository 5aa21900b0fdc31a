// pageable-async-copy: an async copy whose host side is pageable memory (malloc, new, a local array, std::vector).
#pragma once

#include "analyzer/lint_check.h"

namespace streamcheck::lint {

class PageableAsyncCopyCheck : public LintCheck {
 public:
  PageableAsyncCopyCheck();
  void OnAsyncCopy(const AsyncCopy& copy, const FlowState& before, CheckContext& ctx) override;
};

}  // namespace streamcheck::lint
