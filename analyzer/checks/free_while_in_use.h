// free-while-in-use: cudaFreeAsync on a stream not ordered after the buffer's pending uses, or a host free of memory an async op still uses.
#pragma once

#include "analyzer/lint_check.h"

namespace streamcheck::lint {

class FreeWhileInUseCheck : public LintCheck {
 public:
  FreeWhileInUseCheck();
  void OnFree(const FreeEvent& free, const FlowState& before, CheckContext& ctx) override;
};

}  // namespace streamcheck::lint
