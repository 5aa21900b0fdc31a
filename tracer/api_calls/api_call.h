// One CUDA runtime or driver API call as a decoder sees it, whichever
// front-end delivered it (CUPTI's, tracer/cupti/; the Sanitizer API's,
// tracer/sanitizer/): the tracer, the call's name, parameters and result,
// and helpers for the runtime API's handle conventions. Both APIs describe a
// call alike: a pointer to the parameter struct of CUDA's
// generated_cuda_*_meta.h (cuda_call_params.h) and CUDA's own callback id,
// which cupti_*_cbid.h and sanitizer_*_cbid.h both spell out with the same
// values (sanitizer_front_end.cpp checks it). Decoders name ids in CUPTI's
// spelling, whose headers clash with neither front-end.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "tracer/tracer.h"

namespace streamcheck::tracer {

using ApiCallbackId = uint32_t;
enum class ApiDomain : uint8_t { kRuntime, kDriver };

// The runtime's handle for `stream` as a call passed it: 0 is the legacy
// default stream, or the per-thread one in a _ptsz/_ptds variant.
inline Handle StreamHandle(const void* stream, bool per_thread_default) {
  const Handle h = reinterpret_cast<Handle>(stream);
  return (h == 0 && per_thread_default) ? kCudaStreamPerThread : h;
}

struct ApiCall {
  Tracer& tracer;
  const char* function_name;  // a constant string of the CUDA library (lives as long as the process)
  const void* function_params;
  const void* return_value;  // valid at exit only
  const char* symbol_name;   // launches: the kernel's (mangled) name
  bool entry;                // API entry; else its exit
  bool per_thread_default;   // a _ptsz/_ptds variant: stream 0 means the per-thread default stream

  template <typename Params>
  const Params& params() const { return *static_cast<const Params*>(function_params); }
  cudaError_t result() const { return *static_cast<const cudaError_t*>(return_value); }
  CUresult driver_result() const { return *static_cast<const CUresult*>(return_value); }

  // A record for this call with its API name filled in.
  TraceRecord Record(OpCode op) const {
    TraceRecord r;
    r.op = op;
    r.api = tracer.InternStatic(function_name);
    return r;
  }
  Handle Stream(const void* stream) const { return StreamHandle(stream, per_thread_default); }
};

template <typename T>
Handle ToHandle(T* p) { return reinterpret_cast<Handle>(p); }

// Decoders, one per family of APIs. Each returns false when it does not
// handle `cbid`. They run at API exit, for calls that succeeded (queries also
// when they report "not ready").
bool DecodeStreamOrEventCall(const ApiCall& c, ApiCallbackId cbid);
bool DecodeMemoryCall(const ApiCall& c, ApiCallbackId cbid);
bool DecodeGraphCall(const ApiCall& c, ApiCallbackId cbid);
// Driver calls, at API exit outside a traced runtime call, for calls that
// succeeded (queries also when not ready): events and waits; streams and
// the host's synchronizations.
bool DecodeDriverEventCall(const ApiCall& c, ApiCallbackId cbid);
bool DecodeDriverStreamCall(const ApiCall& c, ApiCallbackId cbid);
// Host functions launched through the driver (stream_event_calls.cpp), also
// when the call failed (its followed run goes back).
bool DecodeDriverHostFuncCall(const ApiCall& c, ApiCallbackId cbid);
// The driver's own allocations (cuMemAlloc, cuMemAllocAsync, cuMemHostAlloc
// and kin) and frees, made outside a runtime call, for calls that succeeded
// (memory_calls.cpp).
bool DecodeDriverMemoryCall(const ApiCall& c, ApiCallbackId cbid);
// The driver's copies and memsets, made outside a runtime call, for calls
// that succeeded (memory_calls.cpp).
bool DecodeDriverCopyCall(const ApiCall& c, ApiCallbackId cbid);
// At a call's entry, no lock held: the host guards' part (memory_calls.cpp):
// memory about to be freed, and host memory a synchronous call touches itself.
void GuardHostMemoryAtEntry(const ApiCall& c, ApiDomain domain, ApiCallbackId cbid);

}  // namespace streamcheck::tracer
