#include "tracer/libraries/mpi/mpi_operations.h"

namespace streamcheck::tracer {
namespace {

AccessMode ModeOf(int32_t mode) {
  switch (mode) {
    case STREAMCHECK_MPI_READ: return AccessMode::kRead;
    case STREAMCHECK_MPI_WRITE: return AccessMode::kWrite;
    case STREAMCHECK_MPI_READ_WRITE: return AccessMode::kReadWrite;
    default: return AccessMode::kUnknown;
  }
}

}  // namespace

std::vector<MemoryAccess> MpiRequests::AccessesOf(const StreamcheckMpiCall& call) {
  std::vector<MemoryAccess> out;
  for (int32_t i = 0; i < call.buffer_count && i < 2; ++i) {
    const StreamcheckMpiBuffer& b = call.buffers[i];
    if (b.size != 0) out.push_back({b.address, b.size, ModeOf(b.mode), AccessCertainty::kExact});
  }
  return out;
}

uint32_t MpiRequests::Start(std::vector<MemoryAccess> accesses, std::vector<MpiRecord>* out) {
  if (++next_id_ == 0) ++next_id_;  // 0 is no operation
  out->push_back({OpCode::kMpiStart, next_id_, std::move(accesses)});
  return next_id_;
}

void MpiRequests::Enter(StreamcheckMpiCall* call, std::vector<MpiRecord>* out, std::string* problem) {
  std::lock_guard<std::mutex> lock(mutex_);
  call->operation = 0;
  switch (call->kind) {
    case STREAMCHECK_MPI_BLOCKING:
    case STREAMCHECK_MPI_NONBLOCKING:
      // A call with no bytes (a zero count, MPI_IN_PLACE alone) is an
      // operation all the same: its completion orders nothing new, harmlessly.
      if (call->unknown_extent != 0) {
        *problem = std::string(call->name) + " (a datatype or communicator whose extent MPI did not say)";
        return;
      }
      call->operation = Start(AccessesOf(*call), out);
      return;
    case STREAMCHECK_MPI_START:
      for (int32_t i = 0; i < call->request_count; ++i) {
        const uint64_t request = call->requests[i];
        auto it = persistent_.find(request);
        if (it == persistent_.end()) continue;  // made before the tracer listened
        CompleteRequest(request, out);          // restarting an active one is the program's error; keep order
        active_[request] = Start(it->second, out);
      }
      return;
    default:
      return;
  }
}

void MpiRequests::CompleteRequest(uint64_t request, std::vector<MpiRecord>* out) {
  auto it = active_.find(request);
  if (it == active_.end()) return;
  out->push_back({OpCode::kMpiComplete, it->second, {}});
  active_.erase(it);
}

void MpiRequests::Leave(const StreamcheckMpiCall& call, std::vector<MpiRecord>* out) {
  std::lock_guard<std::mutex> lock(mutex_);
  const bool ok = call.result == 0;
  switch (call.kind) {
    case STREAMCHECK_MPI_BLOCKING:
      if (call.operation != 0) out->push_back({OpCode::kMpiComplete, call.operation, {}});
      return;
    case STREAMCHECK_MPI_NONBLOCKING:
      if (call.operation == 0) return;
      // A failed call started nothing: its operation ends here.
      if (!ok) out->push_back({OpCode::kMpiComplete, call.operation, {}});
      else active_[call.new_request] = call.operation;
      return;
    case STREAMCHECK_MPI_PERSISTENT_INIT:
      if (ok && call.unknown_extent == 0) persistent_[call.new_request] = AccessesOf(call);
      return;
    case STREAMCHECK_MPI_START:
      if (!ok)  // which of them started is not known: none is followed further
        for (int32_t i = 0; i < call.request_count; ++i) CompleteRequest(call.requests[i], out);
      return;
    case STREAMCHECK_MPI_COMPLETE:
      for (int32_t i = 0; call.completed != nullptr && i < call.request_count; ++i)
        if (call.completed[i] != 0) CompleteRequest(call.requests[i], out);
      return;
    case STREAMCHECK_MPI_FREE:
      // Its completion can no longer be seen: a pending operation stays
      // pending (the standard gives the program no way to know the buffer
      // is free again but other synchronization).
      if (ok)
        for (int32_t i = 0; i < call.request_count; ++i) {
          active_.erase(call.requests[i]);
          persistent_.erase(call.requests[i]);
        }
      return;
    default:
      return;
  }
}

size_t MpiRequests::pending() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return active_.size();
}

}  // namespace streamcheck::tracer
