// use-before-allocation: memory from cudaMallocAsync used by work on a stream
// that is not ordered after the allocation (no later work on the allocating
// stream, no event wait, no host synchronization with it).
#pragma once

#include "analyzer/lint_check.h"

namespace streamcheck::lint {

class UseBeforeAllocationCheck : public LintCheck {
 public:
  UseBeforeAllocationCheck();
  void OnDeviceOp(const DeviceOp& op, const FlowState& before, CheckContext& ctx) override;
};

}  // namespace streamcheck::lint
