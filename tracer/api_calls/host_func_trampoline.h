// Observing where and when a host function runs (cudaLaunchHostFunc,
// cudaStreamAddCallback). CUDA runs it on a thread of the driver's once the
// work before it on its stream has completed; nothing in CUPTI says so. At
// the runtime call's entry the launch is noted; in the driver call it makes
// (cuLaunchHostFunc or cuStreamAddCallback), the function pointer and its data
// in the driver call's parameter struct are replaced by a trampoline and a
// context of ours (the runtime call's own parameter struct is a copy: a
// substitution there was seen to be ignored, CUDA 13.0 on an H200); the
// trampoline, on the driver's thread, emits kHostFuncBegin (the thread is
// after the host function's place on its stream: runtime/engine_host_threads.cpp),
// calls the program's function with the program's data, and emits
// kHostFuncEnd. A thread the function creates, or a lock it releases, then
// carries that order through the preloaded interposers' records.
//
// Writing to the parameter struct is not a documented CUPTI (or Sanitizer
// API) feature. Should a CUDA version ignore it, the program's function runs
// as before, its context is never taken back, and once the contexts in
// flight reach their bound no more calls are followed: the engine then
// orders host functions as it did before (stream order only).
//
// cuLaunchHostFunc / cuStreamAddCallback called directly through the driver
// (XLA signals a copy's completion so) are followed the same way, from the
// driver call's own entry and exit. A host function captured into a graph
// runs at each launch, not once: it is followed as a graph host node
// (graph_host_nodes.h).
#pragma once

#include <cstdint>

#include "tracer/api_calls/api_call.h"

namespace streamcheck::tracer {

// At a runtime call's entry: notes a host-function launch in progress.
void FollowHostFuncAtEntry(const ApiCall& c, ApiCallbackId cbid);
// At a driver call's entry inside it: puts the trampoline in the driver
// call's parameters. No lock held.
void FollowHostFuncAtDriverEntry(const ApiCall& c, ApiCallbackId cbid);
// At the entry of a driver host-function launch (cuLaunchHostFunc,
// cuStreamAddCallback and their _ptsz forms) made outside a runtime call:
// the same, the driver call being the launch itself. No lock held.
void FollowDirectHostFuncAtEntry(const ApiCall& c, ApiCallbackId cbid);
// At the call's exit, on the same thread: the id for its kHostFunc record (0:
// not followed). Then, once the record is emitted, HostFuncIssued(); for a
// call that failed, HostFuncNotLaunched().
uint32_t HostFuncIdOfThisCall();
// Writes kHostFuncBegin / kHostFuncEnd of run `id` from the thread running
// it, once the tracer that followed it has written the launch's record.
void EmitHostFuncRunRecord(Tracer* t, OpCode op, uint32_t id);
void HostFuncIssued();
void HostFuncNotLaunched();

}  // namespace streamcheck::tracer
