// unsynchronized-timing: a host clock read while work issued since the previous read may still run, or cudaEventElapsedTime before the stop event is waited for.
#pragma once

#include "analyzer/lint_check.h"

namespace streamcheck::lint {

class UnsynchronizedTimingCheck : public LintCheck {
 public:
  UnsynchronizedTimingCheck();
  void OnHostClock(const ClockRead& read, const FlowState& before, CheckContext& ctx) override;
  void OnElapsedTime(const ElapsedTime& elapsed, const FlowState& before, CheckContext& ctx) override;
};

}  // namespace streamcheck::lint
