// wait-on-unrecorded-event: cudaStreamWaitEvent / cudaEventSynchronize on an event created here and recorded on no path before the wait.
#pragma once

#include "analyzer/lint_check.h"

namespace streamcheck::lint {

class WaitOnUnrecordedEventCheck : public LintCheck {
 public:
  WaitOnUnrecordedEventCheck();
  void OnEventWait(const EventWait& wait, const FlowState& before, CheckContext& ctx) override;
};

}  // namespace streamcheck::lint
