// The tracer's side of the per-test scopes' ABI (tracer/preload/scopes.c,
// include/streamcheck/scope.h): its hooks, registered with the preloaded
// library when there is one, and the scopes a thread opened before the
// tracer came.
#pragma once

#include <string_view>
#include <vector>

namespace streamcheck::tracer {

class Tracer;

// Routes the preloaded library's scope calls to `tracer` from now on. Does
// nothing without the library (a process CUDA loaded the tracer into
// without `streamcheck run`: its scope calls found nothing to call).
void RegisterScopeHooks(Tracer* tracer);

// The scopes the calling thread has open, outermost first, as the preloaded
// library keeps them (valid until the thread closes them); none without it.
std::vector<std::string_view> OpenScopesOfThisThread();

}  // namespace streamcheck::tracer
