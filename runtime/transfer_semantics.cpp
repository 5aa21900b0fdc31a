#include "runtime/transfer_semantics.h"

namespace streamcheck {
namespace {
bool OnHost(MemoryKind k) { return IsHostMemory(k); }
}  // namespace

CopyKind ResolveCopyKind(CopyKind declared, MemoryKind src, MemoryKind dst) {
  if (declared != CopyKind::kDefault) return declared;
  const bool h_src = OnHost(src), h_dst = OnHost(dst);
  if (h_src && h_dst) return CopyKind::kHostToHost;
  if (h_src) return CopyKind::kHostToDevice;
  if (h_dst) return CopyKind::kDeviceToHost;
  return CopyKind::kDeviceToDevice;
}

TransferPlan PlanCopy(CopyKind kind, MemoryKind src, MemoryKind dst, bool is_async) {
  TransferPlan p;
  if (kind == CopyKind::kHostToHost) {
    // "For transfers from any host memory to any host memory, the function is
    // fully synchronous with respect to the host" (sync and async variants).
    p.source = p.destination = TransferSide::kHost;
    return p;
  }
  if (is_async) {
    // "For transfers between device memory and pageable host memory, the
    // function might be synchronous with respect to host." We do not rely on
    // that: the copy stays asynchronous here and is flagged.
    const bool pageable = (kind == CopyKind::kHostToDevice && src == MemoryKind::kPageableHost) ||
                          (kind == CopyKind::kDeviceToHost && dst == MemoryKind::kPageableHost);
    p.pageable_async = pageable;
    return p;
  }
  switch (kind) {
    case CopyKind::kHostToDevice:
      if (src == MemoryKind::kPageableHost) {
        // "a stream sync is performed before the copy is initiated. The function
        // will return once the pageable buffer has been copied to the staging
        // memory ... but the DMA to final destination may not have completed."
        p.host_waits_for_stream_before = true;
        p.source = TransferSide::kHost;
        p.staged_destination = true;
      } else {
        // "For transfers from pinned host memory to device memory, the function
        // is synchronous with respect to the host."
        p.host_waits_after = true;
      }
      break;
    case CopyKind::kDeviceToHost:
      // "the function returns only once the copy has completed."
      p.host_waits_after = true;
      break;
    case CopyKind::kDeviceToDevice:
      // "no host-side synchronization is performed."
      break;
    default:
      break;
  }
  return p;
}

TransferPlan PlanMemset(MemoryKind dst, bool is_async) {
  TransferPlan p;
  p.source = TransferSide::kNone;
  // "The cudaMemset functions are asynchronous with respect to the host except
  // when the target memory is pinned host memory."
  p.host_waits_after = !is_async && IsPinnedHost(dst);
  return p;
}

}  // namespace streamcheck
