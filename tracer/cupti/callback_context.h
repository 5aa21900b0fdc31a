// What a decoder needs to turn one CUPTI callback into records: the tracer,
// the API name, and helpers for the handle conventions of the runtime API.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>

#include "tracer/tracer.h"

namespace streamcheck::tracer {

struct CallbackContext {
  Tracer& tracer;
  const CUpti_CallbackData* data;
  bool per_thread_default;  // a _ptsz/_ptds variant: stream 0 means the per-thread default stream

  template <typename Params>
  const Params& params() const { return *static_cast<const Params*>(data->functionParams); }
  cudaError_t result() const { return *static_cast<const cudaError_t*>(data->functionReturnValue); }
  CUresult driver_result() const { return *static_cast<const CUresult*>(data->functionReturnValue); }

  // A record for this call with its API name filled in.
  TraceRecord Record(OpCode op) const {
    TraceRecord r;
    r.op = op;
    r.api = tracer.InternStatic(data->functionName);
    return r;
  }
  Handle Stream(const void* stream) const {
    const Handle h = reinterpret_cast<Handle>(stream);
    return (h == 0 && per_thread_default) ? kCudaStreamPerThread : h;
  }
};

template <typename T>
Handle ToHandle(T* p) { return reinterpret_cast<Handle>(p); }

// Decoders, one per family of APIs. Each returns false when it does not
// handle `cbid`. They run at API exit, for calls that succeeded (queries also
// when they report "not ready").
bool DecodeStreamOrEventCall(const CallbackContext& c, CUpti_CallbackId cbid);
bool DecodeMemoryCall(const CallbackContext& c, CUpti_CallbackId cbid);
// The driver's own pinned-memory calls, made outside a runtime call.
bool DecodeDriverHostMemoryCall(const CallbackContext& c, CUpti_CallbackId cbid);
// At a call's entry, no lock held: the host guards' part (memory_calls.cpp).
void GuardHostMemoryAtEntry(Tracer& t, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                            const CUpti_CallbackData* data);
bool DecodeGraphCall(const CallbackContext& c, CUpti_CallbackId cbid);
// Driver calls (CUPTI's driver domain), at API exit outside a traced runtime
// call, for calls that succeeded.
bool DecodeDriverEventCall(const CallbackContext& c, CUpti_CallbackId cbid);

}  // namespace streamcheck::tracer
