// The tracer's side of the MPI interposers (tracer/preload/mpi_interposers.c):
// an MPI call's start records reach the engine before the call (what the
// thread knows then is what orders the library's access), its completions
// after it; in between, the thread's CUDA work is MPI's own
// (ThreadState::library_call "mpi": a CUDA-aware MPI's staging copies and
// streams). Registered with the NCCL hooks (nccl_hooks.cpp).
#pragma once

#include "tracer/preload/library_hooks.h"

namespace streamcheck::tracer {

class Tracer;

void MpiEnter(StreamcheckMpiCall* call);
void MpiLeave(StreamcheckMpiCall* call);
// Call once, with tracer_lock() held, before the hooks are handed out.
void SetMpiTracer(Tracer* tracer);

}  // namespace streamcheck::tracer
