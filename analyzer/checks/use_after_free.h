// use-after-free: an op or host access of a buffer freed on every path before it.
#pragma once

#include "analyzer/lint_check.h"

namespace streamcheck::lint {

class UseAfterFreeCheck : public LintCheck {
 public:
  UseAfterFreeCheck();
  void OnDeviceOp(const DeviceOp& op, const FlowState& before, CheckContext& ctx) override;
  void OnHostAccess(const HostAccess& access, const FlowState& before, CheckContext& ctx) override;
};

}  // namespace streamcheck::lint
