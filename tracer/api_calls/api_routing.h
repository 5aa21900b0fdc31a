// Which CUDA runtime and driver API calls streamcheck takes, and the route
// of each callback to its decoder: one list and one route for every
// front-end. A front-end enables the calls of these lists with its own API
// and hands each callback over as an ApiCall (api_call.h).
#pragma once

#include <span>

#include "tracer/api_calls/api_call.h"

namespace streamcheck::tracer {

struct EnabledCalls {
  ApiDomain domain;
  std::span<const ApiCallbackId> ids;
};

// Everything a full trace enables, list by list.
std::span<const EnabledCalls> AllEnabledCalls();
// The driver's kernel launch and kernel node calls alone (what
// STREAMCHECK_DEBUG=launch-callbacks-only enables).
std::span<const EnabledCalls> LaunchCalls();
bool IsDriverLaunch(ApiCallbackId cbid);

// Call once, before the first RouteApiCall.
void InitApiRouting();

// One callback of an enabled call, entry or exit, to its decoder. Entries
// and driver calls nested in runtime calls touch only this thread's state and
// run without the tracer's lock; the rest take it.
void RouteApiCall(Tracer& t, ApiDomain domain, ApiCallbackId cbid, const ApiCall& call);

}  // namespace streamcheck::tracer
