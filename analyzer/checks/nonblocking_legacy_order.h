// nonblocking-legacy-order: a conflict that the legacy default stream would have ordered, were the stream not created with cudaStreamNonBlocking.
#pragma once

#include "analyzer/lint_check.h"

namespace streamcheck::lint {

class NonBlockingLegacyOrderCheck : public LintCheck {
 public:
  NonBlockingLegacyOrderCheck();
  void OnDeviceOp(const DeviceOp& op, const FlowState& before, CheckContext& ctx) override;
  void OnHostAccess(const HostAccess& access, const FlowState& before, CheckContext& ctx) override;
};

}  // namespace streamcheck::lint
