// Allocation, free, copies and memsets. What they tell of the live
// allocations and the boundaries inside them (to bound kernel pointer
// arguments) the analysis worker takes from these records (record_resolver.h).

#include "runtime/transfer_semantics.h"
#include "tracer/api_calls/api_call.h"
#include "tracer/api_calls/cuda_call_params.h"
#include "tracer/host/host_guards.h"

namespace streamcheck::tracer {
namespace {

CopyKind ToCopyKind(cudaMemcpyKind k) { return static_cast<CopyKind>(k); }

const void* Device(CUdeviceptr p) { return reinterpret_cast<const void*>(static_cast<uintptr_t>(p)); }

// `stream`: where a stream-ordered allocation (kMallocAsync: cudaMallocAsync,
// cudaMallocFromPoolAsync) becomes usable.
void EmitMalloc(const ApiCall& c, void* ptr, uint64_t size, MemoryKind kind, OpCode op = OpCode::kMalloc,
                Handle stream = 0) {
  TraceRecord r = c.Record(op);
  r.dst = ToHandle(ptr);
  r.size = size;
  r.memory_kind = kind;
  r.stream = stream;
  c.tracer.Emit(r);
}

void EmitMallocAsync(const ApiCall& c, void* ptr, uint64_t size, Handle stream) {
  EmitMalloc(c, ptr, size, MemoryKind::kDevice, OpCode::kMallocAsync, stream);
}

void EmitFree(const ApiCall& c, const void* ptr, OpCode op, Handle stream) {
  TraceRecord r = c.Record(op);
  r.dst = ToHandle(ptr);
  r.stream = stream;
  c.tracer.Emit(r);
}

// A copy as the calls describe it: a flat one of `width` bytes, or `height`
// rows of `width` bytes at the pitches (2D and 3D copies).
struct CopyRegion {
  const void* dst;
  const void* src;
  uint64_t width;
  uint64_t height = 1;
  uint64_t dst_pitch = 0;
  uint64_t src_pitch = 0;
  cudaMemcpyKind kind;
  Handle stream;
  bool async;
};

void EmitCopy(const ApiCall& c, const CopyRegion& copy) {
  TraceRecord r = c.Record(OpCode::kMemcpy);
  r.dst = ToHandle(copy.dst);
  r.src = ToHandle(copy.src);
  r.size = copy.width;
  r.height = copy.height > 1 ? copy.height : 0;
  r.dst_pitch = copy.height > 1 ? copy.dst_pitch : 0;
  r.src_pitch = copy.height > 1 ? copy.src_pitch : 0;
  r.copy_kind = ToCopyKind(copy.kind);
  r.stream = copy.stream;
  r.is_async = copy.async;
  c.tracer.Emit(r);
}

struct MemsetRegion {
  const void* dst;
  uint64_t width;
  uint64_t height = 1;
  uint64_t pitch = 0;
  Handle stream;
  bool async;
};

void EmitMemset(const ApiCall& c, const MemsetRegion& memset) {
  TraceRecord r = c.Record(OpCode::kMemset);
  r.dst = ToHandle(memset.dst);
  r.size = memset.width;
  r.height = memset.height > 1 ? memset.height : 0;
  r.dst_pitch = memset.height > 1 ? memset.pitch : 0;
  r.stream = memset.stream;
  r.is_async = memset.async;
  c.tracer.Emit(r);
}

void Emit3D(const ApiCall& c, const cudaMemcpy3DParms* p, Handle stream, bool async) {
  if (p == nullptr || p->srcArray || p->dstArray) {
    c.tracer.CountUnmodeled("cudaMemcpy3D with CUDA arrays");
    return;
  }
  const uint64_t rows = uint64_t(p->extent.height) * (p->extent.depth ? p->extent.depth : 1);
  EmitCopy(c, {.dst = static_cast<char*>(p->dstPtr.ptr) + p->dstPos.x,
               .src = static_cast<char*>(p->srcPtr.ptr) + p->srcPos.x,
               .width = p->extent.width,
               .height = rows,
               .dst_pitch = p->dstPtr.pitch,
               .src_pitch = p->srcPtr.pitch,
               .kind = p->kind,
               .stream = stream,
               .async = async});
}

// Symbols: the tracer cannot ask for a symbol's device address from inside a
// runtime call, so the host-side symbol address (plus offset) stands for it:
// unique per symbol, never aliasing other memory.
cudaMemcpyKind SymbolCopyKind(cudaMemcpyKind k, cudaMemcpyKind default_kind) {
  return k == cudaMemcpyDefault ? default_kind : k;
}

void Suspend3D(host::HostGuards& g, const cudaMemcpy3DParms* p) {
  if (p == nullptr || p->srcArray || p->dstArray) return;
  const uint64_t rows = uint64_t(p->extent.height) * (p->extent.depth ? p->extent.depth : 1);
  g.Suspend(ToHandle(static_cast<char*>(p->dstPtr.ptr) + p->dstPos.x),
            StridedExtent(p->extent.width, rows, p->dstPtr.pitch));
  g.Suspend(ToHandle(static_cast<char*>(p->srcPtr.ptr) + p->srcPos.x),
            StridedExtent(p->extent.width, rows, p->srcPtr.pitch));
}

}  // namespace

// The guard pages' part of a call's entry: memory it frees or unregisters
// gets back what the guards took, before the driver unmaps it; memory a
// synchronous copy or memset reads or writes opens for it (the driver may
// touch pinned memory on the calling thread; a fault there is CUDA's own,
// opened and not recorded, but the page would then stay open after the
// call). An asynchronous one is left alone: its host side is the device's
// to touch later, and the two system calls would cost each copy more than
// the rare fault inside the driver (host_guards.h) costs.
void GuardHostMemoryAtEntry(const ApiCall& c, ApiDomain domain, ApiCallbackId cbid) {
  host::HostGuards* g = c.tracer.host_guards();
  if (g == nullptr || !g->on()) return;
  if (domain == ApiDomain::kDriver) {
    switch (cbid) {
      case CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost:
        return g->ForgetAtEntry(ToHandle(c.params<cuMemFreeHost_params>().p));
      case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:  // managed memory may be guarded
        return g->ForgetAtEntry(ToHandle(Device(c.params<cuMemFree_v2_params>().dptr)));
      case CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister:
        return g->ForgetAtEntry(ToHandle(c.params<cuMemHostUnregister_params>().p));
        // A synchronous copy or memset: the host memory it reads or writes.
#define STREAMCHECK_DRIVER_COPY(call, variant, Params, to, from, bytes, direction, on, is_async) \
  case CUPTI_DRIVER_TRACE_CBID_##call:                                                           \
  case CUPTI_DRIVER_TRACE_CBID_##variant:                                                        \
    if (!(is_async)) {                                                                           \
      const auto& p = c.params<Params>();                                                        \
      g->Suspend(ToHandle(to), bytes);                                                           \
      g->Suspend(ToHandle(from), bytes);                                                         \
    }                                                                                            \
    return;
#define STREAMCHECK_DRIVER_MEMSET(call, variant, Params, element_bytes, on, is_async) \
  case CUPTI_DRIVER_TRACE_CBID_##call:                                                \
  case CUPTI_DRIVER_TRACE_CBID_##variant:                                             \
    if (!(is_async)) {                                                                \
      const auto& p = c.params<Params>();                                             \
      g->Suspend(ToHandle(Device(p.dstDevice)), p.N * (element_bytes));                 \
    }                                                                                 \
    return;
#include "tracer/api_calls/driver_copy_calls.def"
#undef STREAMCHECK_DRIVER_COPY
#undef STREAMCHECK_DRIVER_MEMSET
      default:
        return;
    }
  }
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020:
      return g->ForgetAtEntry(ToHandle(c.params<cudaFree_v3020_params>().devPtr));
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020:
      return g->ForgetAtEntry(ToHandle(c.params<cudaFreeHost_v3020_params>().ptr));
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000:
      return g->ForgetAtEntry(ToHandle(c.params<cudaHostUnregister_v4000_params>().ptr));
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000: {
      const auto& p = c.params<cudaMemcpy_v3020_params>();
      g->Suspend(ToHandle(p.dst), p.count);
      return g->Suspend(ToHandle(p.src), p.count);
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_ptds_v7000: {
      const auto& p = c.params<cudaMemcpy2D_v3020_params>();
      g->Suspend(ToHandle(p.dst), StridedExtent(p.width, p.height, p.dpitch));
      return g->Suspend(ToHandle(p.src), StridedExtent(p.width, p.height, p.spitch));
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_ptds_v7000:
      return Suspend3D(*g, c.params<cudaMemcpy3D_v3020_params>().p);
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_ptds_v7000: {
      const auto& p = c.params<cudaMemcpyToSymbol_v3020_params>();
      return g->Suspend(ToHandle(p.src), p.count);
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_ptds_v7000: {
      const auto& p = c.params<cudaMemcpyFromSymbol_v3020_params>();
      return g->Suspend(ToHandle(p.dst), p.count);
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000: {
      const auto& p = c.params<cudaMemset_v3020_params>();
      return g->Suspend(ToHandle(p.devPtr), p.count);
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset2D_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset2D_ptds_v7000: {
      const auto& p = c.params<cudaMemset2D_v3020_params>();
      return g->Suspend(ToHandle(p.devPtr), StridedExtent(p.width, p.height, p.pitch));
    }
    default:
      return;
  }
}

// Memory a library or program allocates, registers and frees through the
// driver itself (XLA, Numba and driver-API programs; inside a runtime call
// the runtime's record stands for it): device, managed and pinned memory,
// and the stream-ordered allocations.
bool DecodeDriverMemoryCall(const ApiCall& c, ApiCallbackId cbid) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2: {
      const auto& p = c.params<cuMemAlloc_v2_params>();
      EmitMalloc(c, reinterpret_cast<void*>(*p.dptr), p.bytesize, MemoryKind::kDevice);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2: {
      const auto& p = c.params<cuMemAllocPitch_v2_params>();
      EmitMalloc(c, reinterpret_cast<void*>(*p.dptr), uint64_t(*p.pPitch) * p.Height, MemoryKind::kDevice);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged: {
      const auto& p = c.params<cuMemAllocManaged_params>();
      EmitMalloc(c, reinterpret_cast<void*>(*p.dptr), p.bytesize, MemoryKind::kManaged);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
      EmitFree(c, Device(c.params<cuMemFree_v2_params>().dptr), OpCode::kFree, 0);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz: {
      const auto& p = c.params<cuMemAllocAsync_params>();
      EmitMallocAsync(c, reinterpret_cast<void*>(*p.dptr), p.bytesize, c.Stream(p.hStream));
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz: {
      const auto& p = c.params<cuMemAllocFromPoolAsync_params>();
      EmitMallocAsync(c, reinterpret_cast<void*>(*p.dptr), p.bytesize, c.Stream(p.hStream));
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz: {
      const auto& p = c.params<cuMemFreeAsync_params>();
      EmitFree(c, Device(p.dptr), OpCode::kFreeAsync, c.Stream(p.hStream));
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc: {
      const auto& p = c.params<cuMemHostAlloc_params>();
      EmitMalloc(c, *p.pp, p.bytesize, MemoryKind::kPinnedHost);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2: {
      const auto& p = c.params<cuMemAllocHost_v2_params>();
      EmitMalloc(c, *p.pp, p.bytesize, MemoryKind::kPinnedHost);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost:
      EmitFree(c, c.params<cuMemFreeHost_params>().p, OpCode::kFree, 0);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2: {
      const auto& p = c.params<cuMemHostRegister_v2_params>();
      TraceRecord r = c.Record(OpCode::kHostRegister);
      r.dst = ToHandle(p.p);
      r.size = p.bytesize;
      c.tracer.Emit(r);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister:
      EmitFree(c, c.params<cuMemHostUnregister_params>().p, OpCode::kHostUnregister, 0);
      return true;
    default:
      return false;
  }
}

// Copies and memsets through the driver, made outside a runtime call
// (driver_copy_calls.def): the runtime's records.
bool DecodeDriverCopyCall(const ApiCall& c, ApiCallbackId cbid) {
  switch (cbid) {
#define STREAMCHECK_DRIVER_COPY(call, variant, Params, to, from, bytes, direction, on, is_async)                      \
  case CUPTI_DRIVER_TRACE_CBID_##call:                                                                                \
  case CUPTI_DRIVER_TRACE_CBID_##variant: {                                                                           \
    const auto& p = c.params<Params>();                                                                               \
    EmitCopy(c,                                                                                                       \
             {.dst = to, .src = from, .width = bytes, .kind = direction, .stream = c.Stream(on), .async = is_async}); \
    return true;                                                                                                      \
  }
#define STREAMCHECK_DRIVER_MEMSET(call, variant, Params, element_bytes, on, is_async)                                \
  case CUPTI_DRIVER_TRACE_CBID_##call:                                                                               \
  case CUPTI_DRIVER_TRACE_CBID_##variant: {                                                                          \
    const auto& p = c.params<Params>();                                                                              \
    EmitMemset(                                                                                                      \
        c, {.dst = Device(p.dstDevice), .width = p.N * (element_bytes), .stream = c.Stream(on), .async = is_async}); \
    return true;                                                                                                     \
  }
#include "tracer/api_calls/driver_copy_calls.def"
#undef STREAMCHECK_DRIVER_COPY
#undef STREAMCHECK_DRIVER_MEMSET
    default:
      return false;
  }
}

namespace {

// Allocations, frees and host registrations through the runtime.
bool DecodeRuntimeAllocationCall(const ApiCall& c, ApiCallbackId cbid) {
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020: {
      const auto& p = c.params<cudaMalloc_v3020_params>();
      EmitMalloc(c, *p.devPtr, p.size, MemoryKind::kDevice);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020: {
      const auto& p = c.params<cudaMallocPitch_v3020_params>();
      EmitMalloc(c, *p.devPtr, *p.pitch * p.height, MemoryKind::kDevice);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000: {
      const auto& p = c.params<cudaMallocManaged_v6000_params>();
      EmitMalloc(c, *p.devPtr, p.size, MemoryKind::kManaged);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020: {
      const auto& p = c.params<cudaMallocHost_v3020_params>();
      EmitMalloc(c, *p.ptr, p.size, MemoryKind::kPinnedHost);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020: {
      const auto& p = c.params<cudaHostAlloc_v3020_params>();
      EmitMalloc(c, *p.pHost, p.size, MemoryKind::kPinnedHost);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020:
      EmitFree(c, c.params<cudaFree_v3020_params>().devPtr, OpCode::kFree, 0);
      return true;
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020:
      EmitFree(c, c.params<cudaFreeHost_v3020_params>().ptr, OpCode::kFree, 0);
      return true;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020: {
      const auto& p = c.params<cudaMallocAsync_v11020_params>();
      EmitMallocAsync(c, *p.devPtr, p.size, c.Stream(p.hStream));
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020: {
      const auto& p = c.params<cudaMallocFromPoolAsync_v11020_params>();
      EmitMallocAsync(c, *p.ptr, p.size, c.Stream(p.stream));
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020: {
      const auto& p = c.params<cudaFreeAsync_v11020_params>();
      EmitFree(c, p.devPtr, OpCode::kFreeAsync, c.Stream(p.hStream));
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostRegister_v4000: {
      const auto& p = c.params<cudaHostRegister_v4000_params>();
      TraceRecord r = c.Record(OpCode::kHostRegister);
      r.dst = ToHandle(p.ptr);
      r.size = p.size;
      c.tracer.Emit(r);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000:
      EmitFree(c, c.params<cudaHostUnregister_v4000_params>().ptr, OpCode::kHostUnregister, 0);
      return true;
    default:
      return false;
  }
}

// Copies and memsets through the runtime; the synchronous ones on the
// call's default stream.
bool DecodeRuntimeCopyCall(const ApiCall& c, ApiCallbackId cbid) {
  const Handle default_stream = c.Stream(nullptr);
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000: {
      const auto& p = c.params<cudaMemcpy_v3020_params>();
      EmitCopy(
          c, {.dst = p.dst, .src = p.src, .width = p.count, .kind = p.kind, .stream = default_stream, .async = false});
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000: {
      const auto& p = c.params<cudaMemcpyAsync_v3020_params>();
      EmitCopy(
          c,
          {.dst = p.dst, .src = p.src, .width = p.count, .kind = p.kind, .stream = c.Stream(p.stream), .async = true});
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_ptds_v7000: {
      const auto& p = c.params<cudaMemcpy2D_v3020_params>();
      EmitCopy(c, {.dst = p.dst,
                   .src = p.src,
                   .width = p.width,
                   .height = p.height,
                   .dst_pitch = p.dpitch,
                   .src_pitch = p.spitch,
                   .kind = p.kind,
                   .stream = default_stream,
                   .async = false});
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_ptsz_v7000: {
      const auto& p = c.params<cudaMemcpy2DAsync_v3020_params>();
      EmitCopy(c, {.dst = p.dst,
                   .src = p.src,
                   .width = p.width,
                   .height = p.height,
                   .dst_pitch = p.dpitch,
                   .src_pitch = p.spitch,
                   .kind = p.kind,
                   .stream = c.Stream(p.stream),
                   .async = true});
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_ptds_v7000:
      Emit3D(c, c.params<cudaMemcpy3D_v3020_params>().p, default_stream, false);
      return true;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_ptsz_v7000: {
      const auto& p = c.params<cudaMemcpy3DAsync_v3020_params>();
      Emit3D(c, p.p, c.Stream(p.stream), true);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeer_v4000: {
      const auto& p = c.params<cudaMemcpyPeer_v4000_params>();
      EmitCopy(c, {.dst = p.dst,
                   .src = p.src,
                   .width = p.count,
                   .kind = cudaMemcpyDeviceToDevice,
                   .stream = default_stream,
                   .async = false});
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000: {
      const auto& p = c.params<cudaMemcpyPeerAsync_v4000_params>();
      EmitCopy(c, {.dst = p.dst,
                   .src = p.src,
                   .width = p.count,
                   .kind = cudaMemcpyDeviceToDevice,
                   .stream = c.Stream(p.stream),
                   .async = true});
      return true;
    }
    default:
      return false;
  }
}

// Copies to and from a __device__ symbol.
bool DecodeRuntimeSymbolCopyCall(const ApiCall& c, ApiCallbackId cbid) {
  const Handle default_stream = c.Stream(nullptr);
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_ptds_v7000: {
      const auto& p = c.params<cudaMemcpyToSymbol_v3020_params>();
      EmitCopy(c, {.dst = static_cast<const char*>(p.symbol) + p.offset,
                   .src = p.src,
                   .width = p.count,
                   .kind = SymbolCopyKind(p.kind, cudaMemcpyHostToDevice),
                   .stream = default_stream,
                   .async = false});
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_ptsz_v7000: {
      const auto& p = c.params<cudaMemcpyToSymbolAsync_v3020_params>();
      EmitCopy(c, {.dst = static_cast<const char*>(p.symbol) + p.offset,
                   .src = p.src,
                   .width = p.count,
                   .kind = SymbolCopyKind(p.kind, cudaMemcpyHostToDevice),
                   .stream = c.Stream(p.stream),
                   .async = true});
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_ptds_v7000: {
      const auto& p = c.params<cudaMemcpyFromSymbol_v3020_params>();
      EmitCopy(c, {.dst = p.dst,
                   .src = static_cast<const char*>(p.symbol) + p.offset,
                   .width = p.count,
                   .kind = SymbolCopyKind(p.kind, cudaMemcpyDeviceToHost),
                   .stream = default_stream,
                   .async = false});
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_ptsz_v7000: {
      const auto& p = c.params<cudaMemcpyFromSymbolAsync_v3020_params>();
      EmitCopy(c, {.dst = p.dst,
                   .src = static_cast<const char*>(p.symbol) + p.offset,
                   .width = p.count,
                   .kind = SymbolCopyKind(p.kind, cudaMemcpyDeviceToHost),
                   .stream = c.Stream(p.stream),
                   .async = true});
      return true;
    }
    default:
      return false;
  }
}

// Memsets through the runtime.
bool DecodeRuntimeMemsetCall(const ApiCall& c, ApiCallbackId cbid) {
  const Handle default_stream = c.Stream(nullptr);
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000: {
      const auto& p = c.params<cudaMemset_v3020_params>();
      EmitMemset(c, {.dst = p.devPtr, .width = p.count, .stream = default_stream, .async = false});
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000: {
      const auto& p = c.params<cudaMemsetAsync_v3020_params>();
      EmitMemset(c, {.dst = p.devPtr, .width = p.count, .stream = c.Stream(p.stream), .async = true});
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset2D_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset2D_ptds_v7000: {
      const auto& p = c.params<cudaMemset2D_v3020_params>();
      EmitMemset(c, {.dst = p.devPtr,
                     .width = p.width,
                     .height = p.height,
                     .pitch = p.pitch,
                     .stream = default_stream,
                     .async = false});
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset2DAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset2DAsync_ptsz_v7000: {
      const auto& p = c.params<cudaMemset2DAsync_v3020_params>();
      EmitMemset(c, {.dst = p.devPtr,
                     .width = p.width,
                     .height = p.height,
                     .pitch = p.pitch,
                     .stream = c.Stream(p.stream),
                     .async = true});
      return true;
    }
    default:
      return false;
  }
}
}  // namespace

bool DecodeMemoryCall(const ApiCall& c, ApiCallbackId cbid) {
  return DecodeRuntimeAllocationCall(c, cbid) || DecodeRuntimeCopyCall(c, cbid) ||
         DecodeRuntimeSymbolCopyCall(c, cbid) || DecodeRuntimeMemsetCall(c, cbid);
}

}  // namespace streamcheck::tracer
