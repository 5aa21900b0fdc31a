// The check module: every check, registered once.
#include "analyzer/checks/cross_stream_race.h"
#include "analyzer/checks/free_while_in_use.h"
#include "analyzer/checks/host_device_race.h"
#include "analyzer/checks/nonblocking_legacy_order.h"
#include "analyzer/checks/pageable_async_copy.h"
#include "analyzer/checks/unsynchronized_timing.h"
#include "analyzer/checks/use_after_free.h"
#include "analyzer/checks/use_before_allocation.h"
#include "analyzer/checks/wait_on_unrecorded_event.h"

namespace streamcheck::lint {

std::vector<std::unique_ptr<LintCheck>> MakeAllChecks() {
  std::vector<std::unique_ptr<LintCheck>> checks;
  checks.push_back(std::make_unique<CrossStreamRaceCheck>());
  checks.push_back(std::make_unique<HostDeviceRaceCheck>());
  checks.push_back(std::make_unique<FreeWhileInUseCheck>());
  checks.push_back(std::make_unique<UseAfterFreeCheck>());
  checks.push_back(std::make_unique<UseBeforeAllocationCheck>());
  checks.push_back(std::make_unique<WaitOnUnrecordedEventCheck>());
  checks.push_back(std::make_unique<NonBlockingLegacyOrderCheck>());
  checks.push_back(std::make_unique<UnsynchronizedTimingCheck>());
  checks.push_back(std::make_unique<PageableAsyncCopyCheck>());
  return checks;
}

}  // namespace streamcheck::lint
