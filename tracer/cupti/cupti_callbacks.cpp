#include "tracer/cupti/cupti_callbacks.h"

#include <cupti.h>
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tracer/api_calls/api_routing.h"
#include "tracer/api_calls/kernel_launches.h"
#include "tracer/debug/debug_flags.h"
#include "tracer/debug/launch_timing.h"
#include "tracer/hot_path.h"

namespace streamcheck::tracer {
namespace {

// STREAMCHECK_DEBUG=profile: how often each enabled call's callbacks fired,
// printed at exit, because CUPTI's cost is per callback and a workload's mix
// of calls decides which of them are worth modeling from another site. Per
// CUDA call too: a runtime call's callbacks with those of the driver calls
// it makes inside (decoded only where a program calls the driver itself),
// what moving a call's decoding to one level would save.
class CallbackCensus {
 public:
  void Count(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char* name, bool entry) {
    Slot* slot = SlotOf(domain, cbid);
    if (slot == nullptr) return;
    slot->name.store(name, std::memory_order_relaxed);
    slot->count.fetch_add(1, std::memory_order_relaxed);
    thread_local uint32_t runtime_depth = 0, nested = 0;
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
      if (entry && runtime_depth++ == 0) nested = 0;
      if (!entry && runtime_depth > 0 && --runtime_depth == 0) {
        slot->calls.fetch_add(1, std::memory_order_relaxed);
        slot->nested.fetch_add(nested, std::memory_order_relaxed);
      }
    } else if (runtime_depth > 0) {
      ++nested;
    } else if (!entry) {
      slot->calls.fetch_add(1, std::memory_order_relaxed);
    }
  }
  void Print() const {
    struct Fired {
      uint64_t count, calls, nested;
      const char* name;
      bool driver;
    };
    std::vector<Fired> fired;
    auto collect = [&](const auto& table, bool driver) {
      for (const Slot& s : table)
        if (const uint64_t n = s.count.load()) fired.push_back({n, s.calls.load(), s.nested.load(), s.name.load(), driver});
    };
    collect(runtime_, false);
    collect(driver_, true);
    std::sort(fired.begin(), fired.end(), [](const Fired& a, const Fired& b) { return a.count > b.count; });
    std::fprintf(stderr, "streamcheck[profile]: callbacks by call (entry and exit each count):");
    for (const Fired& f : fired)
      std::fprintf(stderr, " %s %llu%s", f.name ? f.name : "?", static_cast<unsigned long long>(f.count),
                   f.driver ? " (driver);" : ";");
    std::fprintf(stderr, "\nstreamcheck[profile]: callbacks per CUDA call (its own 2, and the driver's inside it):");
    for (const Fired& f : fired)
      if (f.calls != 0)
        std::fprintf(stderr, " %s %llu calls x %.2f (%.2f inside);", f.name ? f.name : "?",
                     static_cast<unsigned long long>(f.calls), 2.0 + static_cast<double>(f.nested) / f.calls,
                     static_cast<double>(f.nested) / f.calls);
    std::fprintf(stderr, "\n");
  }

 private:
  struct Slot {
    std::atomic<uint64_t> count{0};
    std::atomic<uint64_t> calls{0};   // made by the program (not inside a runtime call)
    std::atomic<uint64_t> nested{0};  // driver callbacks inside those calls
    std::atomic<const char*> name{nullptr};
  };
  Slot* SlotOf(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid < runtime_.size()) return &runtime_[cbid];
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid < driver_.size()) return &driver_[cbid];
    return nullptr;
  }
  std::array<Slot, CUPTI_RUNTIME_TRACE_CBID_SIZE> runtime_;
  std::array<Slot, CUPTI_DRIVER_TRACE_CBID_SIZE> driver_;
};

CallbackCensus* g_census = nullptr;           // only with STREAMCHECK_DEBUG=profile
LaunchTiming* g_launch_timing = nullptr;      // only with STREAMCHECK_DEBUG=launch-timing

STREAMCHECK_HOT void Route(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData* data) {
  static const bool callbacks_only = DebugFlag(DebugSwitch::kCallbacksOnly);
  if (g_census != nullptr) g_census->Count(domain, cbid, data->functionName, data->callbackSite == CUPTI_API_ENTER);
  Tracer* t = GlobalTracer();
  if (t == nullptr || callbacks_only) return;
  GuardInternalErrors("a CUDA callback", [&] { HandleCallback(t, domain, cbid, data); });
}

STREAMCHECK_HOT void CUPTIAPI OnCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                         const void* payload) {
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) [[unlikely]]
    return HandleResourceCallback(cbid);
  const auto* data = static_cast<const CUpti_CallbackData*>(payload);
  if (g_launch_timing == nullptr || domain != CUPTI_CB_DOMAIN_DRIVER_API || !IsDriverLaunch(cbid))
    return Route(domain, cbid, data);
  const uint64_t begin = g_launch_timing->Now();
  Route(domain, cbid, data);
  g_launch_timing->Note(data->callbackSite == CUPTI_API_ENTER, begin, g_launch_timing->Now());
}

bool Enable(CUpti_SubscriberHandle s, std::span<const EnabledCalls> lists) {
  for (const EnabledCalls& list : lists) {
    const CUpti_CallbackDomain domain =
        list.domain == ApiDomain::kRuntime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
    for (ApiCallbackId id : list.ids)
      if (cuptiEnableCallback(1, s, domain, id) != CUPTI_SUCCESS) return false;
  }
  return true;
}

}  // namespace

// CUPTI's payload as the front-end-neutral ApiCall, routed (api_routing.h).
STREAMCHECK_HOT void HandleCallback(Tracer* t, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                    const CUpti_CallbackData* data) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const ApiCall call{*t,           data->functionName, data->functionParams, data->functionReturnValue,
                     data->symbolName, data->callbackSite == CUPTI_API_ENTER, false};
  RouteApiCall(*t, domain == CUPTI_CB_DOMAIN_RUNTIME_API ? ApiDomain::kRuntime : ApiDomain::kDriver, cbid, call);
}

void HandleResourceCallback(CUpti_CallbackId cbid) {
  if (cbid == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING) ForgetKernelLayouts();
}

bool SubscribeCallbacks() {
  InitApiRouting();
  if (DebugFlag(DebugSwitch::kProfile)) {
    g_census = new CallbackCensus;  // lives until exit: callbacks may still come during teardown
    std::atexit([] { g_census->Print(); });
  }
  if (DebugFlag(DebugSwitch::kLaunchTiming)) {
    g_launch_timing = new LaunchTiming;  // lives until exit, as the census does
    std::atexit([] { g_launch_timing->Print(); });
  }
  CUpti_SubscriberHandle subscriber;
  const CUptiResult rc = cuptiSubscribe(&subscriber, reinterpret_cast<CUpti_CallbackFunc>(OnCallback), nullptr);
  if (rc != CUPTI_SUCCESS) {
    const char* why = nullptr;
    cuptiGetResultString(rc, &why);
    std::fprintf(stderr,
                 "streamcheck: cannot subscribe to CUPTI (%s); another profiler or sanitizer may be "
                 "attached. The program runs untraced.\n",
                 why ? why : "unknown error");
    return false;
  }
  // Floors for measuring CUPTI's own cost: a subscription with nothing
  // enabled, or with the kernel launches alone.
  if (DebugFlag(DebugSwitch::kSubscribeOnly)) return true;
  if (cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING) !=
      CUPTI_SUCCESS) {
    // Unseen unloads would leave a reused handle with the unloaded kernel's
    // layout: each launch decodes its kernel's anew instead (slower, never wrong).
    std::fprintf(stderr, "streamcheck: CUPTI refused the module-unload callback; kernel layouts are not cached\n");
    DisableKernelLayoutCache();
  }
  if (DebugFlag(DebugSwitch::kLaunchCallbacksOnly)) return Enable(subscriber, LaunchCalls());
  if (!Enable(subscriber, AllEnabledCalls()))
    std::fprintf(stderr, "streamcheck: CUPTI refused a callback; some calls will not be traced\n");
  return true;
}

}  // namespace streamcheck::tracer
