// cross-stream-race: a stream op touches memory that pending work of another stream writes (or reads, when this op writes) with no event ordering between them.
#pragma once

#include "analyzer/lint_check.h"

namespace streamcheck::lint {

class CrossStreamRaceCheck : public LintCheck {
 public:
  CrossStreamRaceCheck();
  void OnDeviceOp(const DeviceOp& op, const FlowState& before, CheckContext& ctx) override;
};

}  // namespace streamcheck::lint
