// The precise front-end (`streamcheck run --precise[=GLOB]`, docs/PRECISE.md; design: docs/internals/precise.md):
// the Compute Sanitizer API in place of CUPTI, which cannot both subscribe in
// one process. Its runtime and driver API callbacks take the same route to
// the same decoders as CUPTI's (tracer/api_calls/), so both front-ends make
// the same trace records; what it adds is the kernels' exact accesses: every
// module is patched as it loads (patches/precise_patches.cu), each selected
// launch gets a summary slot (device_summaries.h), and its record waits on
// the analysis worker for the launch's end.
//
// This header names nothing of the Sanitizer API: injection.cpp, which sees
// CUPTI's headers, includes it (the two SDKs' headers clash).
#pragma once

#include <string>

namespace streamcheck::tracer {

class Tracer;

// Subscribes to the Sanitizer API with kernels whose demangled name matches
// `glob` instrumented. False, with *error saying why, when the Sanitizer
// API's library cannot be loaded or refuses; the caller then runs fast mode.
bool SubscribePrecise(Tracer& tracer, const std::string& glob, std::string* error);

}  // namespace streamcheck::tracer
