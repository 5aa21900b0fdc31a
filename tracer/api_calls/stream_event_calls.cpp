// Streams, events, synchronization, devices and host functions.

#include "tracer/api_calls/api_call.h"
#include "tracer/api_calls/cuda_call_params.h"
#include "tracer/api_calls/host_func_trampoline.h"

namespace streamcheck::tracer {
namespace {

// The records the runtime's calls and the driver's share.
TraceRecord StreamCreated(const ApiCall& c, Handle stream, uint32_t flags = 0, int32_t priority = 0) {
  TraceRecord r = c.Record(OpCode::kStreamCreate);
  r.stream = stream;
  r.flags = flags;
  r.priority = priority;
  return r;
}
TraceRecord OnStream(const ApiCall& c, OpCode op, Handle stream) {
  TraceRecord r = c.Record(op);
  r.stream = stream;
  return r;
}
TraceRecord OnEvent(const ApiCall& c, OpCode op, Handle event) {
  TraceRecord r = c.Record(op);
  r.event = event;
  return r;
}

}  // namespace

bool DecodeStreamOrEventCall(const ApiCall& c, ApiCallbackId cbid) {
  Tracer& t = c.tracer;
  TraceRecord r;
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020:
      r = StreamCreated(c, ToHandle(*c.params<cudaStreamCreate_v3020_params>().pStream));
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000: {
      const auto& p = c.params<cudaStreamCreateWithFlags_v5000_params>();
      r = StreamCreated(c, ToHandle(*p.pStream), p.flags);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050: {
      const auto& p = c.params<cudaStreamCreateWithPriority_v5050_params>();
      r = StreamCreated(c, ToHandle(*p.pStream), p.flags, p.priority);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v5050:
      r = OnStream(c, OpCode::kStreamDestroy, ToHandle(c.params<cudaStreamDestroy_v5050_params>().stream));
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020:
      r = OnEvent(c, OpCode::kEventSynchronize, ToHandle(c.params<cudaEventSynchronize_v3020_params>().event));
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020:
      r = OnEvent(c, OpCode::kEventQuery, ToHandle(c.params<cudaEventQuery_v3020_params>().event));
      r.result = c.result();
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000:
      r = OnStream(c, OpCode::kStreamSynchronize, c.Stream(c.params<cudaStreamSynchronize_v3020_params>().stream));
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_ptsz_v7000:
      r = OnStream(c, OpCode::kStreamQuery, c.Stream(c.params<cudaStreamQuery_v3020_params>().stream));
      r.result = c.result();
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020:
      r = c.Record(OpCode::kDeviceSynchronize);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaSetDevice_v3020:
      r = c.Record(OpCode::kSetDevice);
      r.device = c.params<cudaSetDevice_v3020_params>().device;
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020:
      r = c.Record(OpCode::kDeviceReset);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventElapsedTime_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventElapsedTime_v12080: {
      const auto& p = c.params<cudaEventElapsedTime_v12080_params>();
      r = c.Record(OpCode::kEventElapsedTime);
      r.event = ToHandle(p.start);
      r.event2 = ToHandle(p.end);
      r.result = c.result();
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_ptsz_v10000:
      r = c.Record(OpCode::kHostFunc);
      r.stream = c.Stream(c.params<cudaLaunchHostFunc_v10000_params>().stream);
      r.id = HostFuncIdOfThisCall();  // its run is followed (host_func_trampoline.h)
      t.Emit(r);
      HostFuncIssued();
      return true;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamAddCallback_v5000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamAddCallback_ptsz_v7000:
      r = c.Record(OpCode::kHostFunc);
      r.stream = c.Stream(c.params<cudaStreamAddCallback_v5000_params>().stream);
      r.id = HostFuncIdOfThisCall();
      t.Emit(r);
      HostFuncIssued();
      return true;
    default:
      return false;
  }
  t.Emit(r);
  return true;
}

// Event records, stream waits and event destruction are decoded from the
// driver call that the runtime's cudaEventRecord(WithFlags),
// cudaStreamWaitEvent and cudaEventDestroy each make, which libraries calling
// the driver directly make too: two callbacks per call where the runtime's
// and the driver's would be four (PyTorch's wait_stream makes four such calls).
// An event needs no record of its creation: one never recorded is one the
// engine has no state for, and the destruction of every event, through
// either API, clears the state of its handle before a new event can take it.
bool DecodeDriverEventCall(const ApiCall& c, ApiCallbackId cbid) {
  TraceRecord r;
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz: {
      const auto& p = c.params<cuEventRecord_params>();
      r = c.Record(OpCode::kEventRecord);
      r.event = ToHandle(p.hEvent);
      r.stream = c.Stream(p.hStream);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz: {
      const auto& p = c.params<cuEventRecordWithFlags_params>();
      r = c.Record(OpCode::kEventRecord);
      r.event = ToHandle(p.hEvent);
      r.stream = c.Stream(p.hStream);
      r.flags = p.flags;
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz: {
      const auto& p = c.params<cuStreamWaitEvent_params>();
      r = c.Record(OpCode::kStreamWaitEvent);
      r.stream = c.Stream(p.hStream);
      r.event = ToHandle(p.hEvent);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuEventDestroy:
    case CUPTI_DRIVER_TRACE_CBID_cuEventDestroy_v2:
      r = c.Record(OpCode::kEventDestroy);
      r.event = ToHandle(c.params<cuEventDestroy_v2_params>().hEvent);
      break;
    default:
      return false;
  }
  if (c.driver_result() == CUDA_SUCCESS) c.tracer.Emit(r);
  return true;
}

// A host function launched through the driver outside a runtime call (its
// run followed from the call's entry, host_func_trampoline.h): the runtime's
// record, after the call succeeded; a failed one gives its context back.
bool DecodeDriverHostFuncCall(const ApiCall& c, ApiCallbackId cbid) {
  Handle stream = 0;
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz:
      stream = c.Stream(c.params<cuLaunchHostFunc_params>().hStream);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamAddCallback:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamAddCallback_ptsz:
      stream = c.Stream(c.params<cuStreamAddCallback_params>().hStream);
      break;
    default:
      return false;
  }
  if (c.driver_result() != CUDA_SUCCESS) {
    HostFuncNotLaunched();
    return true;
  }
  TraceRecord r = OnStream(c, OpCode::kHostFunc, stream);
  r.id = HostFuncIdOfThisCall();
  c.tracer.Emit(r);
  HostFuncIssued();
  return true;
}

// Streams made and destroyed, and the host's waits and queries, through the
// driver: what programs that drive CUDA without its runtime make (JAX's XLA
// synchronizes with cuStreamSynchronize and cuEventSynchronize, and makes its
// streams with cuStreamCreateWithPriority). Unseen, a stream would be met
// first at a launch with no flags known, and every host access after such a
// wait would look unordered with the work waited for. The flag values
// (CU_STREAM_NON_BLOCKING, CUDA_ERROR_NOT_READY) are the runtime's.
bool DecodeDriverStreamCall(const ApiCall& c, ApiCallbackId cbid) {
  TraceRecord r;
  bool query = false;
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuStreamCreate: {
      const auto& p = c.params<cuStreamCreate_params>();
      r = StreamCreated(c, ToHandle(*p.phStream), p.Flags);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority: {
      const auto& p = c.params<cuStreamCreateWithPriority_params>();
      r = StreamCreated(c, ToHandle(*p.phStream), p.flags, p.priority);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2:
      r = OnStream(c, OpCode::kStreamDestroy, ToHandle(c.params<cuStreamDestroy_v2_params>().hStream));
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
      r = OnStream(c, OpCode::kStreamSynchronize, c.Stream(c.params<cuStreamSynchronize_params>().hStream));
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamQuery:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamQuery_ptsz:
      r = OnStream(c, OpCode::kStreamQuery, c.Stream(c.params<cuStreamQuery_params>().hStream));
      query = true;
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize:
      r = OnEvent(c, OpCode::kEventSynchronize, ToHandle(c.params<cuEventSynchronize_params>().hEvent));
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuEventQuery:
      r = OnEvent(c, OpCode::kEventQuery, ToHandle(c.params<cuEventQuery_params>().hEvent));
      query = true;
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize: {
      // The calling thread's context, which may not be the device the
      // runtime last set on it (cuCtxSetCurrent is not traced).
      r = c.Record(OpCode::kDeviceSynchronize);
      CUdevice device = 0;
      if (cuCtxGetDevice(&device) == CUDA_SUCCESS) r.device = static_cast<int32_t>(device);
      break;
    }
    default:
      return false;
  }
  const CUresult rc = c.driver_result();
  if (rc != CUDA_SUCCESS && !(query && rc == CUDA_ERROR_NOT_READY)) return true;  // a failed call did nothing
  r.result = static_cast<int32_t>(rc);
  c.tracer.Emit(r);
  return true;
}

}  // namespace streamcheck::tracer
