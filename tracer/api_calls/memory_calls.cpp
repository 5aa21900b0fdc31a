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

const void* FromDevicePointer(CUdeviceptr p) { return reinterpret_cast<const void*>(static_cast<uintptr_t>(p)); }

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

void EmitCopy(const ApiCall& c, const void* dst, const void* src, uint64_t width, uint64_t height,
              uint64_t dpitch, uint64_t spitch, cudaMemcpyKind kind, Handle stream, bool async) {
  TraceRecord r = c.Record(OpCode::kMemcpy);
  r.dst = ToHandle(dst);
  r.src = ToHandle(src);
  r.size = width;
  r.height = height > 1 ? height : 0;
  r.dst_pitch = height > 1 ? dpitch : 0;
  r.src_pitch = height > 1 ? spitch : 0;
  r.copy_kind = ToCopyKind(kind);
  r.stream = stream;
  r.is_async = async;
  c.tracer.Emit(r);
}

void EmitMemset(const ApiCall& c, const void* dst, uint64_t width, uint64_t height, uint64_t pitch,
                Handle stream, bool async) {
  TraceRecord r = c.Record(OpCode::kMemset);
  r.dst = ToHandle(dst);
  r.size = width;
  r.height = height > 1 ? height : 0;
  r.dst_pitch = height > 1 ? pitch : 0;
  r.stream = stream;
  r.is_async = async;
  c.tracer.Emit(r);
}

void Emit3D(const ApiCall& c, const cudaMemcpy3DParms* p, Handle stream, bool async) {
  if (p == nullptr || p->srcArray || p->dstArray) {
    c.tracer.CountUnmodeled("cudaMemcpy3D with CUDA arrays");
    return;
  }
  const uint64_t rows = uint64_t(p->extent.height) * (p->extent.depth ? p->extent.depth : 1);
  EmitCopy(c, static_cast<char*>(p->dstPtr.ptr) + p->dstPos.x, static_cast<char*>(p->srcPtr.ptr) + p->srcPos.x,
           p->extent.width, rows, p->dstPtr.pitch, p->srcPtr.pitch, p->kind, stream, async);
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
        return g->ForgetAtEntry(ToHandle(FromDevicePointer(c.params<cuMemFree_v2_params>().dptr)));
      case CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister:
        return g->ForgetAtEntry(ToHandle(c.params<cuMemHostUnregister_params>().p));
      case CUPTI_DRIVER_TRACE_CBID_cuMemcpy:
      case CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds: {
        const auto& p = c.params<cuMemcpy_params>();
        g->Suspend(ToHandle(FromDevicePointer(p.dst)), p.ByteCount);
        return g->Suspend(ToHandle(FromDevicePointer(p.src)), p.ByteCount);
      }
      case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2:
      case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds: {
        const auto& p = c.params<cuMemcpyHtoD_v2_params>();
        return g->Suspend(ToHandle(p.srcHost), p.ByteCount);
      }
      case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
      case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds: {
        const auto& p = c.params<cuMemcpyDtoH_v2_params>();
        return g->Suspend(ToHandle(p.dstHost), p.ByteCount);
      }
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
      EmitFree(c, FromDevicePointer(c.params<cuMemFree_v2_params>().dptr), OpCode::kFree, 0);
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
      EmitFree(c, FromDevicePointer(p.dptr), OpCode::kFreeAsync, c.Stream(p.hStream));
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

// Copies and memsets through the driver, made outside a runtime call (JAX's
// XLA, Numba and other programs that drive CUDA themselves; inside one the
// runtime call's record stands for them): the runtime's records, the copy's
// direction from the call's name (cuMemcpy and cuMemcpyAsync infer it from
// the pointers, as cudaMemcpyDefault does). The _ptds/_ptsz variants take
// stream 0 as the per-thread default stream (ApiCall::per_thread_default).
bool DecodeDriverCopyCall(const ApiCall& c, ApiCallbackId cbid) {
  const Handle legacy_or_per_thread = c.Stream(nullptr);
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds: {
      const auto& p = c.params<cuMemcpy_params>();
      EmitCopy(c, FromDevicePointer(p.dst), FromDevicePointer(p.src), p.ByteCount, 1, 0, 0, cudaMemcpyDefault,
               legacy_or_per_thread, false);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz: {
      const auto& p = c.params<cuMemcpyAsync_params>();
      EmitCopy(c, FromDevicePointer(p.dst), FromDevicePointer(p.src), p.ByteCount, 1, 0, 0, cudaMemcpyDefault,
               c.Stream(p.hStream), true);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds: {
      const auto& p = c.params<cuMemcpyHtoD_v2_params>();
      EmitCopy(c, FromDevicePointer(p.dstDevice), p.srcHost, p.ByteCount, 1, 0, 0, cudaMemcpyHostToDevice,
               legacy_or_per_thread, false);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz: {
      const auto& p = c.params<cuMemcpyHtoDAsync_v2_params>();
      EmitCopy(c, FromDevicePointer(p.dstDevice), p.srcHost, p.ByteCount, 1, 0, 0, cudaMemcpyHostToDevice,
               c.Stream(p.hStream), true);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds: {
      const auto& p = c.params<cuMemcpyDtoH_v2_params>();
      EmitCopy(c, p.dstHost, FromDevicePointer(p.srcDevice), p.ByteCount, 1, 0, 0, cudaMemcpyDeviceToHost,
               legacy_or_per_thread, false);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz: {
      const auto& p = c.params<cuMemcpyDtoHAsync_v2_params>();
      EmitCopy(c, p.dstHost, FromDevicePointer(p.srcDevice), p.ByteCount, 1, 0, 0, cudaMemcpyDeviceToHost,
               c.Stream(p.hStream), true);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds: {
      const auto& p = c.params<cuMemcpyDtoD_v2_params>();
      EmitCopy(c, FromDevicePointer(p.dstDevice), FromDevicePointer(p.srcDevice), p.ByteCount, 1, 0, 0,
               cudaMemcpyDeviceToDevice, legacy_or_per_thread, false);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz: {
      const auto& p = c.params<cuMemcpyDtoDAsync_v2_params>();
      EmitCopy(c, FromDevicePointer(p.dstDevice), FromDevicePointer(p.srcDevice), p.ByteCount, 1, 0, 0,
               cudaMemcpyDeviceToDevice, c.Stream(p.hStream), true);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer_ptds: {
      const auto& p = c.params<cuMemcpyPeer_params>();
      EmitCopy(c, FromDevicePointer(p.dstDevice), FromDevicePointer(p.srcDevice), p.ByteCount, 1, 0, 0,
               cudaMemcpyDeviceToDevice, legacy_or_per_thread, false);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync_ptsz: {
      const auto& p = c.params<cuMemcpyPeerAsync_params>();
      EmitCopy(c, FromDevicePointer(p.dstDevice), FromDevicePointer(p.srcDevice), p.ByteCount, 1, 0, 0,
               cudaMemcpyDeviceToDevice, c.Stream(p.hStream), true);
      return true;
    }
    // Memsets count elements of 1, 2 or 4 bytes.
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds: {
      const auto& p = c.params<cuMemsetD8_v2_params>();
      EmitMemset(c, FromDevicePointer(p.dstDevice), p.N, 1, 0, legacy_or_per_thread, false);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds: {
      const auto& p = c.params<cuMemsetD16_v2_params>();
      EmitMemset(c, FromDevicePointer(p.dstDevice), p.N * 2, 1, 0, legacy_or_per_thread, false);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds: {
      const auto& p = c.params<cuMemsetD32_v2_params>();
      EmitMemset(c, FromDevicePointer(p.dstDevice), p.N * 4, 1, 0, legacy_or_per_thread, false);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz: {
      const auto& p = c.params<cuMemsetD8Async_params>();
      EmitMemset(c, FromDevicePointer(p.dstDevice), p.N, 1, 0, c.Stream(p.hStream), true);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz: {
      const auto& p = c.params<cuMemsetD16Async_params>();
      EmitMemset(c, FromDevicePointer(p.dstDevice), p.N * 2, 1, 0, c.Stream(p.hStream), true);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz: {
      const auto& p = c.params<cuMemsetD32Async_params>();
      EmitMemset(c, FromDevicePointer(p.dstDevice), p.N * 4, 1, 0, c.Stream(p.hStream), true);
      return true;
    }
    default:
      return false;
  }
}

bool DecodeMemoryCall(const ApiCall& c, ApiCallbackId cbid) {
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
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000: {
      const auto& p = c.params<cudaMemcpy_v3020_params>();
      EmitCopy(c, p.dst, p.src, p.count, 1, 0, 0, p.kind, c.Stream(nullptr), false);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000: {
      const auto& p = c.params<cudaMemcpyAsync_v3020_params>();
      EmitCopy(c, p.dst, p.src, p.count, 1, 0, 0, p.kind, c.Stream(p.stream), true);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_ptds_v7000: {
      const auto& p = c.params<cudaMemcpy2D_v3020_params>();
      EmitCopy(c, p.dst, p.src, p.width, p.height, p.dpitch, p.spitch, p.kind, c.Stream(nullptr), false);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_ptsz_v7000: {
      const auto& p = c.params<cudaMemcpy2DAsync_v3020_params>();
      EmitCopy(c, p.dst, p.src, p.width, p.height, p.dpitch, p.spitch, p.kind, c.Stream(p.stream), true);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_ptds_v7000:
      Emit3D(c, c.params<cudaMemcpy3D_v3020_params>().p, c.Stream(nullptr), false);
      return true;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_ptsz_v7000: {
      const auto& p = c.params<cudaMemcpy3DAsync_v3020_params>();
      Emit3D(c, p.p, c.Stream(p.stream), true);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeer_v4000: {
      const auto& p = c.params<cudaMemcpyPeer_v4000_params>();
      EmitCopy(c, p.dst, p.src, p.count, 1, 0, 0, cudaMemcpyDeviceToDevice, c.Stream(nullptr), false);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000: {
      const auto& p = c.params<cudaMemcpyPeerAsync_v4000_params>();
      EmitCopy(c, p.dst, p.src, p.count, 1, 0, 0, cudaMemcpyDeviceToDevice, c.Stream(p.stream), true);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_ptds_v7000: {
      const auto& p = c.params<cudaMemcpyToSymbol_v3020_params>();
      EmitCopy(c, static_cast<const char*>(p.symbol) + p.offset, p.src, p.count, 1, 0, 0,
               SymbolCopyKind(p.kind, cudaMemcpyHostToDevice), c.Stream(nullptr), false);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_ptsz_v7000: {
      const auto& p = c.params<cudaMemcpyToSymbolAsync_v3020_params>();
      EmitCopy(c, static_cast<const char*>(p.symbol) + p.offset, p.src, p.count, 1, 0, 0,
               SymbolCopyKind(p.kind, cudaMemcpyHostToDevice), c.Stream(p.stream), true);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_ptds_v7000: {
      const auto& p = c.params<cudaMemcpyFromSymbol_v3020_params>();
      EmitCopy(c, p.dst, static_cast<const char*>(p.symbol) + p.offset, p.count, 1, 0, 0,
               SymbolCopyKind(p.kind, cudaMemcpyDeviceToHost), c.Stream(nullptr), false);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_ptsz_v7000: {
      const auto& p = c.params<cudaMemcpyFromSymbolAsync_v3020_params>();
      EmitCopy(c, p.dst, static_cast<const char*>(p.symbol) + p.offset, p.count, 1, 0, 0,
               SymbolCopyKind(p.kind, cudaMemcpyDeviceToHost), c.Stream(p.stream), true);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000: {
      const auto& p = c.params<cudaMemset_v3020_params>();
      EmitMemset(c, p.devPtr, p.count, 1, 0, c.Stream(nullptr), false);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000: {
      const auto& p = c.params<cudaMemsetAsync_v3020_params>();
      EmitMemset(c, p.devPtr, p.count, 1, 0, c.Stream(p.stream), true);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset2D_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset2D_ptds_v7000: {
      const auto& p = c.params<cudaMemset2D_v3020_params>();
      EmitMemset(c, p.devPtr, p.width, p.height, p.pitch, c.Stream(nullptr), false);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset2DAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset2DAsync_ptsz_v7000: {
      const auto& p = c.params<cudaMemset2DAsync_v3020_params>();
      EmitMemset(c, p.devPtr, p.width, p.height, p.pitch, c.Stream(p.stream), true);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace streamcheck::tracer
