// host-device-race: the host reads or writes memory that an asynchronous op not yet synchronized with the host writes (or reads).
#pragma once

#include "analyzer/lint_check.h"

namespace streamcheck::lint {

class HostDeviceRaceCheck : public LintCheck {
 public:
  HostDeviceRaceCheck();
  void OnHostAccess(const HostAccess& access, const FlowState& before, CheckContext& ctx) override;
};

}  // namespace streamcheck::lint
