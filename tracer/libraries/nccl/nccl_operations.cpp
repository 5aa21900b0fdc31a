#include "tracer/libraries/nccl/nccl_operations.h"

#include <utility>

namespace streamcheck::tracer {
namespace {

constexpr int32_t kNcclSuccess = 0;
constexpr int32_t kNcclInProgress = 7;  // a nonblocking communicator: enqueued, completing

// A call NCCL accepted. A nonblocking communicator's ncclInProgress is
// taken as issued at the call (docs/NCCL.md).
bool Accepted(const StreamcheckNcclCall& call) {
  return call.result == kNcclSuccess || call.result == kNcclInProgress;
}

void Add(std::vector<MemoryAccess>* out, uint64_t address, uint64_t bytes, AccessMode mode) {
  if (bytes != 0) out->push_back({address, bytes, mode});
}

// Reads `in` and writes `out`: one read-write access when they are the same bytes.
void ReadThenWrite(std::vector<MemoryAccess>* accesses, uint64_t in, uint64_t in_bytes, uint64_t out,
                   uint64_t out_bytes) {
  if (in == out && in_bytes == out_bytes) return Add(accesses, in, in_bytes, AccessMode::kReadWrite);
  Add(accesses, in, in_bytes, AccessMode::kRead);
  Add(accesses, out, out_bytes, AccessMode::kWrite);
}

// `mode` on every slice of `nranks` slices of `slice` bytes from `base`, but `skipped`'s.
void AllSlicesBut(std::vector<MemoryAccess>* accesses, uint64_t base, uint64_t slice, int32_t nranks,
                  int32_t skipped, AccessMode mode) {
  Add(accesses, base, slice * static_cast<uint64_t>(skipped), mode);
  Add(accesses, base + slice * static_cast<uint64_t>(skipped + 1),
      slice * static_cast<uint64_t>(nranks - skipped - 1), mode);
}

// The gathering side (AllGather on every rank, Gather on the root): reads
// the send buffer, writes every rank's slice of the receive buffer. In
// place (the send buffer is this rank's slice) its own slice is only read.
void Gathered(std::vector<MemoryAccess>* accesses, uint64_t send, uint64_t recv, uint64_t slice, int32_t nranks,
              int32_t rank) {
  Add(accesses, send, slice, AccessMode::kRead);
  if (send == recv + slice * static_cast<uint64_t>(rank)) return AllSlicesBut(accesses, recv, slice, nranks, rank, AccessMode::kWrite);
  Add(accesses, recv, slice * static_cast<uint64_t>(nranks), AccessMode::kWrite);
}

bool NeedsCommunicatorSize(int32_t function) {
  switch (function) {
    case STREAMCHECK_NCCL_ALL_GATHER:
    case STREAMCHECK_NCCL_REDUCE_SCATTER:
    case STREAMCHECK_NCCL_ALL_TO_ALL:
    case STREAMCHECK_NCCL_GATHER:
    case STREAMCHECK_NCCL_SCATTER:
      return true;
    default:
      return false;
  }
}

bool NeedsRank(int32_t function) {
  switch (function) {
    case STREAMCHECK_NCCL_BROADCAST:
    case STREAMCHECK_NCCL_BCAST:
    case STREAMCHECK_NCCL_REDUCE:
    case STREAMCHECK_NCCL_ALL_GATHER:
    case STREAMCHECK_NCCL_GATHER:
    case STREAMCHECK_NCCL_SCATTER:
      return true;
    default:
      return false;
  }
}

bool IsStreamOperation(int32_t function) {
  return function >= STREAMCHECK_NCCL_ALL_REDUCE && function <= STREAMCHECK_NCCL_RECV;
}

std::string Named(const StreamcheckNcclCall& call, const char* what) {
  return std::string(call.name ? call.name : "an NCCL call") + " (" + what + ")";
}

}  // namespace

uint64_t NcclDataTypeSize(int32_t datatype) {
  // ncclInt8/ncclChar, ncclUint8, ncclInt32, ncclUint32, ncclInt64,
  // ncclUint64, ncclFloat16, ncclFloat32, ncclFloat64, ncclBfloat16,
  // ncclFloat8e4m3, ncclFloat8e5m2 (nccl.h 2.28).
  static constexpr uint64_t kSizes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
  return datatype >= 0 && static_cast<size_t>(datatype) < std::size(kSizes) ? kSizes[datatype] : 0;
}

bool DescribeNcclOperation(const StreamcheckNcclCall& call, NcclOperation* out, std::string* problem) {
  out->name = call.name;
  out->stream = call.stream;
  out->accesses.clear();
  out->grouped = false;
  if (!IsStreamOperation(call.function)) {
    *problem = Named(call, "not a stream operation");
    return false;
  }
  const uint64_t element = NcclDataTypeSize(call.datatype);
  if (element == 0) {
    *problem = Named(call, "datatype unknown to streamcheck");
    return false;
  }
  const bool sized = !NeedsCommunicatorSize(call.function) || call.nranks > 0;
  if (!sized || (NeedsRank(call.function) && (call.rank < 0 || (call.nranks > 0 && call.rank >= call.nranks)))) {
    *problem = Named(call, "communicator size or rank unknown");
    return false;
  }
  uint64_t n = 0;  // bytes of count elements
  uint64_t all = 0;  // bytes of nranks x count elements
  if (__builtin_mul_overflow(call.count, element, &n) ||
      __builtin_mul_overflow(n, static_cast<uint64_t>(call.nranks > 0 ? call.nranks : 1), &all)) {
    *problem = Named(call, "size overflows");
    return false;
  }
  const uint64_t send = call.sendbuff, recv = call.recvbuff;
  const bool root = call.rank == call.root;
  std::vector<MemoryAccess>* a = &out->accesses;
  switch (call.function) {
    case STREAMCHECK_NCCL_ALL_REDUCE:
      ReadThenWrite(a, send, n, recv, n);
      break;
    case STREAMCHECK_NCCL_BROADCAST:  // the root sends (in place: only reads), the others receive
      if (!root) Add(a, recv, n, AccessMode::kWrite);
      else if (send == recv) Add(a, send, n, AccessMode::kRead);
      else ReadThenWrite(a, send, n, recv, n);
      break;
    case STREAMCHECK_NCCL_BCAST:
      Add(a, recv, n, root ? AccessMode::kRead : AccessMode::kWrite);
      break;
    case STREAMCHECK_NCCL_REDUCE:  // every rank sends; the root's receive buffer takes the result
      if (root) ReadThenWrite(a, send, n, recv, n);
      else Add(a, send, n, AccessMode::kRead);
      break;
    case STREAMCHECK_NCCL_ALL_GATHER:
      Gathered(a, send, recv, n, call.nranks, call.rank);
      break;
    case STREAMCHECK_NCCL_REDUCE_SCATTER:  // in place, the receive buffer is this rank's slice of the send buffer
      Add(a, send, all, AccessMode::kRead);
      Add(a, recv, n, AccessMode::kWrite);
      break;
    case STREAMCHECK_NCCL_ALL_TO_ALL:
      ReadThenWrite(a, send, all, recv, all);
      break;
    case STREAMCHECK_NCCL_GATHER:  // the root's receive buffer takes every rank's slice
      if (root) Gathered(a, send, recv, n, call.nranks, call.rank);
      else Add(a, send, n, AccessMode::kRead);
      break;
    case STREAMCHECK_NCCL_SCATTER:  // the root sends every rank its slice; in place its own stays
      if (root && recv == send + n * static_cast<uint64_t>(call.rank)) {
        AllSlicesBut(a, send, n, call.nranks, call.rank, AccessMode::kRead);
        break;
      }
      if (root) Add(a, send, all, AccessMode::kRead);
      Add(a, recv, n, AccessMode::kWrite);
      break;
    case STREAMCHECK_NCCL_SEND:
      Add(a, send, n, AccessMode::kRead);
      break;
    case STREAMCHECK_NCCL_RECV:
      Add(a, recv, n, AccessMode::kWrite);
      break;
    default:
      break;
  }
  return true;
}

void NcclThreadCalls::EndGroup(bool launched, std::vector<NcclOperation>* issued) {
  if (group_depth_ == 0) return;  // NCCL refuses an end without a start
  if (--group_depth_ > 0) return;
  if (launched)
    for (NcclOperation& op : group_) issued->push_back(std::move(op));
  group_.clear();
}

void NcclThreadCalls::Leave(const StreamcheckNcclCall& call, std::vector<NcclOperation>* issued,
                            std::vector<std::string>* problems) {
  if (depth_ > 0) --depth_;
  if (depth_ > 0) return;  // NCCL's own call of its API
  switch (call.function) {
    case STREAMCHECK_NCCL_OTHER:
      return;
    case STREAMCHECK_NCCL_GROUP_START:
      if (Accepted(call)) ++group_depth_;
      return;
    // NCCL leaves the group even when its end fails; nothing was launched then.
    case STREAMCHECK_NCCL_GROUP_END:
      return EndGroup(Accepted(call), issued);
    case STREAMCHECK_NCCL_GROUP_SIMULATE_END:
      return EndGroup(/*launched=*/false, issued);
    default:
      break;
  }
  if (!Accepted(call)) return;
  NcclOperation op;
  std::string problem;
  if (!DescribeNcclOperation(call, &op, &problem)) {
    problems->push_back(std::move(problem));
    return;
  }
  op.grouped = group_depth_ > 0;
  (op.grouped ? group_ : *issued).push_back(std::move(op));
}

}  // namespace streamcheck::tracer
