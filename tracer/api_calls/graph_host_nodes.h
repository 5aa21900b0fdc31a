// Observing where and when a graph host node runs (cudaGraphAddHostNode, a
// host function captured into a graph, and the node's parameters changed
// by cudaGraphHostNodeSetParams or cudaGraphExecHostNodeSetParams). As for
// a host function launched once (host_func_trampoline.h), the function and
// data the driver call is given (cuGraphAddHostNode's, cuLaunchHostFunc's in
// a capture, cuGraph[Exec]HostNodeSetParams') are replaced by a trampoline
// and a node context of ours; the trampoline emits kHostFuncBegin/End with
// the node's id around the program's function, called with the program's
// data, at each launch of the graph. The engine queues one run of that id
// per launch (runtime/engine_host_funcs.cpp).
//
// The driver reads a CUDA_HOST_NODE_PARAMS through a pointer: that pointer
// in the driver call's parameter struct is pointed at a copy of ours, the
// program's struct is never written. cudaGraphHostNodeGetParams (through
// cuGraphHostNodeGetParams) gives the program back its own function and data.
//
// A node context lives as long as the process: every graph instantiated
// from the graph, or cloned from it, holds it, even after the graph is
// destroyed, and CUDA says nothing when the last of them goes. So contexts
// are a bounded leak: kMaxGraphHostNodes of them (a parameter change to a
// function and data the node had before takes its context again); past
// that, nodes are not followed and the engine orders their runs by the
// graph's edges only. A failed call gives its context back.
//
// The trampoline runs once the graph is launched, possibly before the
// launching thread has written the launch's record: it waits (two seconds
// at most) until every cudaGraphLaunch entered before it began has written
// its record or failed, so the engine has queued its run.
//
// Not followed: cuGraphAddHostNode called directly through the driver (the
// driver's graph calls are not modeled), nodes of the generic API
// (cudaGraphAddNode, cudaGraphNodeSetParams), and a parameter change of a
// captured node (its handle is not known to the tracer).
#pragma once

#include <cstdint>

#include "tracer/api_calls/api_call.h"

namespace streamcheck::tracer {

constexpr uint32_t kMaxGraphHostNodes = 4096;
// Node ids have this bit set; host_func_trampoline.cpp's run ids never do.
constexpr uint32_t kGraphHostNodeIdBit = 0x80000000u;

// At a runtime call's entry (cudaGraphAddHostNode, cudaGraph[Exec]HostNodeSetParams,
// cudaGraphLaunch): notes it on this thread. No lock held.
void FollowGraphHostNodeAtEntry(const ApiCall& c, ApiCallbackId cbid);
// At the entry of a driver call inside it: the trampoline goes into
// cuGraphAddHostNode's or cuGraph[Exec]HostNodeSetParams' parameters.
void FollowGraphHostNodeAtDriverEntry(const ApiCall& c, ApiCallbackId cbid);
// At cuGraphHostNodeGetParams' exit: the program's own function and data.
void RestoreProgramHostNodeParams(const ApiCall& c, ApiCallbackId cbid);

// cuLaunchHostFunc into a stream capture: swaps `fn` and `data` for the
// trampoline and a node context (false: not followed). The id is this call's
// (GraphHostNodeIdOfThisCall) until it ends.
bool FollowCapturedHostFunc(Tracer& t, CUhostFn& fn, void*& data);

// At the runtime call's exit, under the tracer's lock: the node's id for its
// record (0: not followed), then EndGraphHostNodeCall with the node made
// (null for a parameter change), or GraphHostNodeCallFailed.
uint32_t GraphHostNodeIdOfThisCall();
void EndGraphHostNodeCall(CUgraphNode added);
void GraphHostNodeCallFailed();

// cudaGraphLaunch's record is written (or the launch failed).
void GraphLaunchLeft();

}  // namespace streamcheck::tracer
