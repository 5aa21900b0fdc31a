// The CUPTI front-end (fast mode): subscribes to CUPTI, enables the calls of
// api_routing.h's lists, and hands each callback to the front-end-neutral
// route as an ApiCall. What a call means lives in tracer/api_calls/.
#pragma once

#include <cupti.h>

namespace streamcheck::tracer {

class Tracer;

// Subscribes and enables the callbacks streamcheck models (and those it
// counts as not modeled). Returns false, with a message printed, when CUPTI
// refuses (e.g. another tool already subscribed).
bool SubscribeCallbacks();

// One callback, routed to its decoder: what the subscription calls for every
// enabled call (tests/bench drives it with made-up payloads).
void HandleCallback(Tracer* t, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData* data);

// A resource callback (CUPTI_CB_DOMAIN_RESOURCE); the one enabled is a
// module's unload, after which its kernels' handles may name others.
void HandleResourceCallback(CUpti_CallbackId cbid);

}  // namespace streamcheck::tracer
