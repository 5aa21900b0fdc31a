// The tracer's side of the NCCL interposers (tracer/preload/nccl_interposers.c):
// while an NCCL call runs, the calling thread's CUDA work is NCCL's own
// (ThreadState::library_call); when the program's call returns, its stream
// operations (nccl_operations.h) become kernel-launch records with the
// collective's exact accesses, named after the call (ncclAllReduce) and
// carrying the framework op and stack of the caller (c10d::allreduce_ and
// its Python line).
#pragma once

#include "tracer/preload/library_hooks.h"

namespace streamcheck::tracer {

class Tracer;

// The hooks, emitting into `tracer` (which lives until exit). Call once.
const StreamcheckLibraryHooks* LibraryHooksFor(Tracer* tracer);

// Hands the hooks to the preloaded library, when `streamcheck run` preloaded
// it (looked up by name: it was loaded before the tracer). Call once.
void RegisterLibraryHooks(Tracer* tracer);

}  // namespace streamcheck::tracer
