// Kernel launches, decoded from the driver call (cuLaunchKernel and friends):
// the CUDA runtime's launches (cudaLaunchKernel, <<<>>>, cooperative and Ex
// variants) make one, as do libraries such as cuBLAS directly. It has the
// CUfunction, whose parameter layout (cuFuncGetParamInfo, cached) lets us read
// the argument words and match them against live allocations, and the stream
// (0 or CU_STREAM_LEGACY, CU_STREAM_PER_THREAD or a _ptsz variant, or a
// stream handle, which is the runtime's cudaStream_t). Subscribing to the
// runtime's launch calls as well would double CUPTI's cost per launch.
#pragma once

#include "tracer/api_calls/api_call.h"

namespace streamcheck::tracer {

// Driver launch APIs and cuGraphAddKernelNode: completes a pending graph
// kernel node, or emits the launch (with the precise front-end's ticket for
// its device accesses, ThreadState::device_access_ticket, when it gave one).
// Returns false for other cbids.
bool HandleDriverLaunch(const ApiCall& c, ApiCallbackId cbid);
// cudaGraphAddKernelNode: open a pending kernel at entry, take it at exit to
// fill the node's name and accesses from the nested driver call.
void OpenPendingKernel(void** args);
void TakePendingKernel(const ApiCall& c, TraceRecord* node);
// The cudaGraphAddKernelNode call failed: no node, and the thread's next
// launch is its own again.
void DiscardPendingKernel();
// True while this thread is inside a traced runtime call (its nested driver
// calls are not separate operations, and what it synchronizes is the
// runtime's).
bool InsideRuntimeCall();
void EnterRuntimeCall(Tracer& t);
void LeaveRuntimeCall(Tracer& t);
// A module (or the library behind a CUkernel) is being unloaded: the driver
// hands its functions' handles out again for kernels loaded later (XLA's
// autotuner loads and unloads a module per candidate), so every cached
// layout goes; a stale one read another kernel's argument array with this
// one's layout. Lock-free (it may come while any thread holds the tracer's
// lock): the next launch decoded under the lock clears them.
void ForgetKernelLayouts();
// Where no unload can be seen: every launch decodes its kernel's layout anew.
void DisableKernelLayoutCache();

}  // namespace streamcheck::tracer
