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
    // The synchronous one is still a stream operation: "The synchronous forms
    // of these APIs issue these copies through the default stream", so it
    // first waits for what the legacy default stream waits for (earlier work
    // of blocking streams), and the host waits for it. Seen so on an H200
    // (CUDA 13.0): the copy started after a blocking stream's kernel ended and
    // before a non-blocking one's did (tests/gpu/scenarios/memcpy_host_to_host.cu).
    if (is_async) {
      p.source = p.destination = TransferSide::kHost;
    } else {
      p.host_waits_after = true;
    }
    return p;
  }
  if (is_async) {
    // "For transfers between device memory and pageable host memory, the
    // function might be synchronous with respect to host." and "If pageable
    // memory must first be staged to pinned memory, the driver may synchronize
    // with the stream and stage the copy into pinned memory."
    if (kind == CopyKind::kHostToDevice && src == MemoryKind::kPageableHost) {
      // From pageable memory we follow what was observed over what the words
      // leave open: the driver had read the host buffer when the call
      // returned, at every size tried (28 B to 1 MiB staged in 11-117 us with
      // the stream busy, 64 MiB after waiting for the stream; H200, CUDA 13.0:
      // tests/gpu/scenarios/pageable_async_copy.cu checks it on every GPU
      // round). PyTorch's non-blocking copies from CPU tensors rely on it. So
      // the host reads the source in the call and may reuse it after; the
      // device write stays in stream order.
      p.source = TransferSide::kHost;
      return p;
    }
    // Into pageable memory the copy stays asynchronous here and is flagged: a
    // program that reads the destination without synchronizing relies on the
    // copy having happened to run synchronously.
    p.pageable_async = kind == CopyKind::kDeviceToHost && dst == MemoryKind::kPageableHost;
    return p;
  }
  switch (kind) {
    case CopyKind::kHostToDevice:
      if (src == MemoryKind::kPageableHost) {
        // "a stream sync is performed before the copy is initiated. The function
        // will return once the pageable buffer has been copied to the staging
        // memory ... but the DMA to final destination may not have completed."
        // (A sync of the default stream the copy is issued to: for the legacy
        // one, of every blocking stream too.)
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
  // "The synchronous memset functions are asynchronous with respect to the
  // host except when the target is pinned host memory or a Unified Memory
  // region, in which case they are fully synchronous. The Async versions are
  // always asynchronous with respect to the host." (API synchronization
  // behavior; the runtime API's page names pinned memory only, the driver
  // API's also Unified Memory, which the runtime's memsets are built on.)
  p.host_waits_after = !is_async && (IsPinnedHost(dst) || dst == MemoryKind::kManaged);
  return p;
}

}  // namespace streamcheck
