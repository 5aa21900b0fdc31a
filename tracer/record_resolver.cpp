#include "tracer/record_resolver.h"

#include "tracer/kernel_access/kernel_arguments.h"

namespace streamcheck::tracer {
namespace {

// The bytes a (2D) copy or memset spans from its first byte.
uint64_t Span(const TraceRecord& r, uint64_t pitch) {
  return r.height > 1 ? (r.height - 1) * pitch + r.size : r.size;
}

// Copy and memset bounds are boundaries inside allocations (access_extent.h).
void NoteRange(AllocationBounds& bounds, Address begin, uint64_t bytes) {
  bounds.NoteBoundary(begin);
  bounds.NoteRangeEnd(begin + bytes);
}

}  // namespace

OpRegionStack& RecordResolver::OpsOf(ThreadId thread) {
  if (thread >= ops_by_thread_.size()) ops_by_thread_.resize(thread + 1);
  return ops_by_thread_[thread];
}

bool RecordResolver::Resolve(TraceRecord& r) {
  if (r.op == kOpenFrameworkOps) {  // outside the OpCode enumerators: not a case of the switch
    OpsOf(r.thread).Apply(r);
    return false;
  }
  if (r.closes_framework_ops) {
    OpsOf(r.thread).CloseAll();
    r.closes_framework_ops = false;  // the tracer's own: not for the trace
  }
  switch (r.op) {
    case OpCode::kMalloc:
      bounds_.Add(r.dst, r.size, r.memory_kind);
      break;
    case OpCode::kMallocAsync:
      bounds_.Add(r.dst, r.size, MemoryKind::kAsyncPool);
      break;
    case OpCode::kHostRegister:
      bounds_.Add(r.dst, r.size, MemoryKind::kRegisteredHost);
      break;
    case OpCode::kFree:
    case OpCode::kFreeAsync:
    case OpCode::kHostUnregister:
      bounds_.Remove(r.dst);
      break;
    case OpCode::kMemcpy:
      NoteRange(bounds_, r.dst, Span(r, r.dst_pitch));
      NoteRange(bounds_, r.src, Span(r, r.src_pitch));
      break;
    case OpCode::kMemset:
      NoteRange(bounds_, r.dst, Span(r, r.dst_pitch));
      break;
    case OpCode::kPoolBlockAllocate:
      bounds_.AddPoolBlock(r.dst, r.size);
      OpsOf(r.thread).AddFreshBlock(r.dst, r.size);
      break;
    case OpCode::kPoolBlockFree:
      if (!bounds_.HasPoolBlock(r.dst)) return false;
      bounds_.RemovePoolBlock(r.dst);
      break;
    default:
      break;
  }
  if (r.pointer_words) {
    words_.swap(r.accesses);
    ResolvePointerWords(words_, bounds_, &r.accesses);
    OpsOf(r.thread).Refine(&r.accesses);
    r.pointer_words = false;
  }
  return true;
}

}  // namespace streamcheck::tracer
