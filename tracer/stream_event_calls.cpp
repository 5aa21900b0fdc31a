// Streams, events, synchronization, devices and host functions.
#include <cupti_runtime_cbid.h>

#include "tracer/callback_context.h"

namespace streamcheck::tracer {

bool DecodeStreamOrEventCall(const CallbackContext& c, CUpti_CallbackId cbid) {
  Tracer& t = c.tracer;
  TraceRecord r;
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020:
      r = c.Record(OpCode::kStreamCreate);
      r.stream = ToHandle(*c.params<cudaStreamCreate_v3020_params>().pStream);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000: {
      const auto& p = c.params<cudaStreamCreateWithFlags_v5000_params>();
      r = c.Record(OpCode::kStreamCreate);
      r.stream = ToHandle(*p.pStream);
      r.flags = p.flags;
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050: {
      const auto& p = c.params<cudaStreamCreateWithPriority_v5050_params>();
      r = c.Record(OpCode::kStreamCreate);
      r.stream = ToHandle(*p.pStream);
      r.flags = p.flags;
      r.priority = p.priority;
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v5050:
      r = c.Record(OpCode::kStreamDestroy);
      r.stream = ToHandle(c.params<cudaStreamDestroy_v5050_params>().stream);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventCreate_v3020:
      r = c.Record(OpCode::kEventCreate);
      r.event = ToHandle(*c.params<cudaEventCreate_v3020_params>().event);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventCreateWithFlags_v3020: {
      const auto& p = c.params<cudaEventCreateWithFlags_v3020_params>();
      r = c.Record(OpCode::kEventCreate);
      r.event = ToHandle(*p.event);
      r.flags = p.flags;
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventDestroy_v3020:
      r = c.Record(OpCode::kEventDestroy);
      r.event = ToHandle(c.params<cudaEventDestroy_v3020_params>().event);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000: {
      const auto& p = c.params<cudaEventRecord_v3020_params>();
      r = c.Record(OpCode::kEventRecord);
      r.event = ToHandle(p.event);
      r.stream = c.Stream(p.stream);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010: {
      const auto& p = c.params<cudaEventRecordWithFlags_v11010_params>();
      r = c.Record(OpCode::kEventRecord);
      r.event = ToHandle(p.event);
      r.stream = c.Stream(p.stream);
      r.flags = p.flags;
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000: {
      const auto& p = c.params<cudaStreamWaitEvent_v3020_params>();
      r = c.Record(OpCode::kStreamWaitEvent);
      r.stream = c.Stream(p.stream);
      r.event = ToHandle(p.event);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020:
      r = c.Record(OpCode::kEventSynchronize);
      r.event = ToHandle(c.params<cudaEventSynchronize_v3020_params>().event);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020:
      r = c.Record(OpCode::kEventQuery);
      r.event = ToHandle(c.params<cudaEventQuery_v3020_params>().event);
      r.result = c.result();
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000:
      r = c.Record(OpCode::kStreamSynchronize);
      r.stream = c.Stream(c.params<cudaStreamSynchronize_v3020_params>().stream);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_ptsz_v7000:
      r = c.Record(OpCode::kStreamQuery);
      r.stream = c.Stream(c.params<cudaStreamQuery_v3020_params>().stream);
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
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamAddCallback_v5000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamAddCallback_ptsz_v7000:
      r = c.Record(OpCode::kHostFunc);
      r.stream = c.Stream(c.params<cudaStreamAddCallback_v5000_params>().stream);
      break;
    default:
      return false;
  }
  t.Emit(r);
  return true;
}

}  // namespace streamcheck::tracer
