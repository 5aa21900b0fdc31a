// The CUDA runtime's documented "API synchronization behavior" for copies and
// memsets: which side touches each buffer and whether the host waits. This is
// the one place where cudaMemcpy*/cudaMemset* synchronization is modeled.
// A copy or memset on the stream side is an operation of the stream the call
// names: for the synchronous forms the default stream (the legacy one, or the
// per-thread one when built so), with that stream's ordering rules.
#pragma once

#include "runtime/trace_record.h"

namespace streamcheck {

enum class TransferSide : uint8_t { kNone, kStream, kHost };

struct TransferPlan {
  TransferSide source = TransferSide::kStream;
  TransferSide destination = TransferSide::kStream;
  bool host_waits_for_stream_before = false;  // a stream sync precedes the copy
  bool host_waits_after = false;              // the call returns after the device work is done
  bool pageable_async = false;                // async copy into pageable memory (may be synchronous)
  // A synchronous copy that returns once its pageable source is staged: the
  // DMA into the destination "may not have completed" by the letter.
  bool staged_destination = false;
};

// Bytes a strided (2D) transfer spans from its first byte: rows-1 full
// pitches plus one row. The bounding range is conservative for interleaved
// 2D tiles (documented policy).
inline uint64_t StridedExtent(uint64_t width, uint64_t height, uint64_t pitch) {
  if (height <= 1) return width;
  return (height - 1) * (pitch > width ? pitch : width) + width;
}

// cudaMemcpyDefault resolves from where the pointers live (unified addressing).
CopyKind ResolveCopyKind(CopyKind declared, MemoryKind src, MemoryKind dst);

TransferPlan PlanCopy(CopyKind kind, MemoryKind src, MemoryKind dst, bool is_async);
TransferPlan PlanMemset(MemoryKind dst, bool is_async);

}  // namespace streamcheck
