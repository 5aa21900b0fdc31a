// Kernel launches: the runtime call (cudaLaunchKernel and friends) knows the
// stream as the program named it; the nested driver call (cuLaunchKernel)
// knows the CUfunction, whose parameter layout (cuFuncGetParamInfo, cached)
// lets us read the argument words and match them against live allocations.
// Launches made directly through the driver (libraries such as cuBLAS) are
// decoded from the driver call alone.
#pragma once

#include <cupti.h>

#include "tracer/callback_context.h"

namespace streamcheck::tracer {

// Runtime launch APIs: on entry, opens a pending launch for this thread; on
// exit, emits it. Returns false for other cbids.
bool HandleRuntimeLaunch(const CallbackContext& c, CUpti_CallbackId cbid, bool entry);
// Driver launch APIs and cuGraphAddKernelNode: completes a pending launch, or
// emits a direct driver launch. Returns false for other cbids.
bool HandleDriverLaunch(Tracer& t, const CUpti_CallbackData* data, CUpti_CallbackId cbid);
// cudaGraphAddKernelNode: open a pending kernel at entry, take it at exit to
// fill the node's name and accesses from the nested driver call.
void OpenPendingKernel(void** args);
void TakePendingKernel(const CallbackContext& c, TraceRecord* node);
// True while this thread is inside a traced runtime call (its nested driver
// calls are not separate operations).
bool InsideRuntimeCall();
void EnterRuntimeCall();
void LeaveRuntimeCall();

}  // namespace streamcheck::tracer
