// The CUPTI subscription: which callbacks are enabled and how each is routed.
#pragma once

namespace streamcheck::tracer {

// Subscribes and enables the callbacks streamcheck models (and those it
// counts as not modeled). Returns false, with a message printed, when CUPTI
// refuses (e.g. another tool already subscribed).
bool SubscribeCallbacks();

}  // namespace streamcheck::tracer
